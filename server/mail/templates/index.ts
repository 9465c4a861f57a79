export { accountOpened, type AccountOpenedProps } from "./account-opened.tsx";
export { emailValidation, type EmailValidationProps } from "./email-validation.tsx";
export type { RenderedEmail } from "./layout.tsx";
export { passwordChanged, type PasswordChangedProps } from "./password-changed.tsx";
export { passwordReset, type PasswordResetProps } from "./password-reset.tsx";
export { secondFactorCode, type SecondFactorCodeProps } from "./second-factor-code.tsx";
export { fundsReceived, type FundsReceivedProps } from "./funds-received.tsx";
export { paymentNotice, type PaymentNoticeItem, type PaymentNoticeProps } from "./payment-notice.tsx";
