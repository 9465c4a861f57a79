/** The mail module: `createMailer` and the templates, from one import. */
export {
  createMailer,
  type DeliveredMail,
  type Delivery,
  type HeldMail,
  type Mailer,
  type MailerOptions,
  type MailMessage,
  type MailTransport,
  POOL_CONNECTIONS,
  type SendResult,
} from "./mailer.ts";
export * from "./templates/index.ts";
