// deno-lint-ignore no-explicit-any
export default function AccountUsers(_props: any) {
  return null;
}
