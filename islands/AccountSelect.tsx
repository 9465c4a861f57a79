// deno-lint-ignore no-explicit-any
export default function AccountSelect(_props: any) {
  return null;
}
