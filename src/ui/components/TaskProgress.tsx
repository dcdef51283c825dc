// One line of progress for work that takes a while on the results screen (verify, undo): what, how far, a bar.
import { Text } from 'ink';
import { theme } from '../theme.js';

export function TaskProgress({ label, done, total, width }: { label: string; done: number; total: number; width: number }) {
  const ratio = total > 0 ? Math.min(1, done / total) : 0;
  const text = total > 0 ? `${label} ${done}/${total} (${Math.floor(ratio * 100)}%)` : `${label}…`;
  const bar = Math.max(0, Math.min(30, width - text.length - 2));
  const filled = Math.round(ratio * bar);
  return (
    <Text wrap="truncate-end">
      <Text {...theme.muted}>{text} </Text>
      {bar > 0 && total > 0 ? (
        <>
          <Text {...theme.ok}>{'█'.repeat(filled)}</Text>
          <Text {...theme.muted}>{'░'.repeat(bar - filled)}</Text>
        </>
      ) : null}
    </Text>
  );
}
