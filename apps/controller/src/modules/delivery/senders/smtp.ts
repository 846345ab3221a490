import type { Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { Sender } from "./types.js";

/**
 * Email over SMTP (nodemailer) when `smtpUrl` is set; otherwise (embedded mode) each message is written to
 * the log at info level, so a newcomer can copy a verification token from the console. Nodemailer loads
 * with the first message (0.15 s of CPU a start would pay for nothing when no mail is sent).
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
  const url = opts.smtpUrl;
  let smtp: Promise<Transporter> | undefined;
  return {
    type: "email",
    async send(to, msg) {
      smtp ??= import("nodemailer").then(({ createTransport }) => createTransport(url));
      const transport = await smtp;
      await transport.sendMail({ from: opts.from, to, subject: msg.subject, text: msg.text });
    },
    close() {
      void smtp?.then(
        (transport) => transport.close(),
        () => {},
      );
    },
  };
}
