/** A busy indicator; `label` is read by screen readers (and shown when `showLabel`). */
export function Spinner({ label, showLabel = false }: { label?: string; showLabel?: boolean }) {
  return (
    <div className="spinner-wrap" role="status" aria-live="polite" aria-busy="true" data-testid="spinner">
      <span className="spinner" aria-hidden="true" />
      {label && <span className={showLabel ? 'spinner-label' : 'visually-hidden'}>{label}</span>}
    </div>
  );
}
