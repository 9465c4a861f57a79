-- Security emails kept before decision 057 still hold their links and codes in full: the console
-- only hides them when it shows them. A copy kept since then carries a note where each secret was
-- (server/mail/redact.ts); a copy without any note is from before, and nothing of its body is kept
-- (the same text `keptCopy` keeps when it cannot take the secrets out: fail closed). The list of
-- templates is SECURITY_TEMPLATES as it was when this migration shipped.
UPDATE emails
SET html = '<p>[The content of this security email is not kept: it carried a link or code that signs in.]</p>',
    text = '[The content of this security email is not kept: it carried a link or code that signs in.]'
WHERE template IN ('password-reset', 'second-factor-code', 'email-validation', 'sign-in-paused',
                   'account-invitation', 'administrator-invitation', 'migration-welcome')
  AND instr(text, '[link removed: it signs the customer in]') = 0
  AND instr(text, '[code removed]') = 0
  AND text <> '[The content of this security email is not kept: it carried a link or code that signs in.]';
