/**
 * A busy indicator; `label` is read by screen readers (and shown when `showLabel`). With `heading`,
 * the label is the page's level-one heading (a state with nothing else on the page, or a card
 * still loading), shown or only read out.
 */
export function Spinner({
  label,
  showLabel = false,
  heading = false,
}: {
  label?: string;
  showLabel?: boolean;
  heading?: boolean;
}) {
  const className = showLabel ? 'spinner-label' : 'visually-hidden';
  return (
    <div className="spinner-wrap" role="status" aria-live="polite" aria-busy="true" data-testid="spinner">
      <span className="spinner" aria-hidden="true" />
      {label &&
        (heading ? <h1 className={className}>{label}</h1> : <span className={className}>{label}</span>)}
    </div>
  );
}
