export function AdministrationScreen({ section }: { section: string | undefined }) {
  return <p>{section}</p>;
}
