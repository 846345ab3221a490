import { createTransport } from "nodemailer";
import type { Logger } from "pino";
import type { MailMessage } from "./outbox.js";

export interface MailTransport {
  readonly kind: "smtp" | "log";
  send(msg: MailMessage): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer when `smtpUrl` is set; otherwise (embedded mode) each message is written to the
 * log at info level, so a newcomer can copy a verification token from the console.
 */
export function createMailTransport(opts: {
  smtpUrl: string | undefined;
  from: string;
  log: Logger;
}): MailTransport {
  if (!opts.smtpUrl) {
    return {
      kind: "log",
      async send(msg) {
        opts.log.info(
          { mail: { to: msg.to, subject: msg.subject, text: msg.text } },
          "mail (SMTP_URL unset)",
        );
      },
      close() {},
    };
  }
  const smtp = createTransport(opts.smtpUrl);
  return {
    kind: "smtp",
    async send(msg) {
      await smtp.sendMail({ from: opts.from, to: msg.to, subject: msg.subject, text: msg.text });
    },
    close() {
      smtp.close();
    },
  };
}
