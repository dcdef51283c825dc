// A plain progress bar sized to the space it is given.
import { Text } from 'ink';
import { theme } from '../theme.js';

export function ProgressBar({ done, total, width }: { done: number; total: number; width: number }) {
  const ratio = total > 0 ? Math.min(1, done / total) : 0;
  const inner = Math.max(10, width - 8);
  const filled = Math.round(ratio * inner);
  return (
    <Text>
      <Text {...theme.ok}>{'█'.repeat(filled)}</Text>
      <Text {...theme.muted}>{'░'.repeat(inner - filled)}</Text>
      <Text> {`${Math.floor(ratio * 100)}%`.padStart(4)}</Text>
    </Text>
  );
}
