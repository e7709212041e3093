import { useId, type ReactNode } from 'react';

export interface ControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** A label bound to its control, with a hint and the field's error wired up for screen readers. */
export function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  children: (props: ControlProps) => ReactNode;
}) {
  const hintId = useId();
  const errorId = useId();
  const describedBy = [hint !== undefined ? hintId : null, error !== undefined ? errorId : null].filter((x) => x !== null).join(' ');
  return (
    <div className={`field${error !== undefined ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': error !== undefined || undefined, 'aria-describedby': describedBy === '' ? undefined : describedBy })}
      {hint !== undefined && (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
      {error !== undefined && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** A checkbox with its label after it. */
export function CheckField({
  id,
  label,
  checked,
  onChange,
  hint,
}: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: ReactNode;
}) {
  const hintId = useId();
  return (
    <div className="check-field">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} aria-describedby={hint !== undefined ? hintId : undefined} />
      <label htmlFor={id}>{label}</label>
      {hint !== undefined && (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
    </div>
  );
}
