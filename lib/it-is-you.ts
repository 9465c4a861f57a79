/**
 * Who is there, asked again before the second factor changes (decision 023): the refusal when
 * neither the password nor a code from the app was given. Zod-free, so that the island says it
 * (islands/TotpSettings.tsx) without loading the contracts.
 */
export const PROOF_NEEDED = "Enter your password or a code from your authenticator app.";
