/** An indeterminate progress bar: the server gives no intermediate progress for a send. */
export function ProgressBar({ label }: { label: string }) {
  return (
    <div className="progress" role="progressbar" aria-label={label} data-testid="send-progress">
      <div className="progress-bar" />
    </div>
  );
}
