import { useState } from 'react';

/** Copies text to the clipboard and says so; a one-time secret stays selectable beside it. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      className="button button-small"
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text' : label}
      <span className="visually-hidden" aria-live="polite">
        {state === 'copied' ? ' to the clipboard' : ''}
      </span>
    </button>
  );
}
