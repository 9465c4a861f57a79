// deno-lint-ignore no-explicit-any
export default function InvitationRegister(_props: any) {
  return null;
}
