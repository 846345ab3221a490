import { createTransport } from "nodemailer";
import type { Logger } from "pino";
import type { Sender } from "./types.js";

/**
 * Email over SMTP (nodemailer) when `smtpUrl` is set; otherwise (embedded mode) each message is written to
 * the log at info level, so a newcomer can copy a verification token from the console.
 */
export function smtpSender(opts: {
  smtpUrl: string | undefined;
  from: string;
  log: Logger;
}): Sender<"email"> {
  if (!opts.smtpUrl) {
    return {
      type: "email",
      async send(to, msg) {
        opts.log.info({ mail: { to, subject: msg.subject, text: msg.text } }, "mail (SMTP_URL unset)");
      },
      close() {},
    };
  }
  const smtp = createTransport(opts.smtpUrl);
  return {
    type: "email",
    async send(to, msg) {
      await smtp.sendMail({ from: opts.from, to, subject: msg.subject, text: msg.text });
    },
    close() {
      smtp.close();
    },
  };
}
