// deno-lint-ignore no-explicit-any
export default function InvitationAccept(_props: any) {
  return null;
}
