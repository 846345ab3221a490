export {
  enqueueMail,
  MAX_MAIL_ATTEMPTS,
  type MailMessage,
} from "./outbox.js";
export { createMailTransport, type MailTransport } from "./transport.js";
export { type MailWorker, startMailWorker } from "./worker.js";
