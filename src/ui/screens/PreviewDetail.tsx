// The preview screen's one-record panel: the record's details (scrolled when taller than the terminal) and the
// password spot-check, its field and its result. The password typed lives only in the field until enter.
import { Text } from 'ink';
import { Field } from '../components/Field.js';
import { Frame } from '../components/Frame.js';
import { linesThatFit } from '../fit.js';
import { helpLine, type Command } from '../keymap.js';
import { detailLines } from '../records-view.js';
import type { PreviewRecord } from '../services/types.js';
import type { PreviewState } from '../state/types.js';
import { theme } from '../theme.js';
import { inWizardWords } from '../wizard-words.js';

export const DETAIL_KEYS: Command[] = ['up', 'down', 'spotCheck', 'back'];

export interface PreviewDetailProps {
  detail: PreviewRecord;
  spot: PreviewState['spotCheck'];
  /** The spot-check's password being typed (undefined: no field). */
  password: string | undefined;
  setPassword(password: string | undefined): void;
  onSpotCheck(password: string): void;
  /** The first detail line shown (↑/↓ scroll). */
  detailFirst: number;
  bodyRows: number;
  width: number;
}

export function PreviewDetail({ detail, spot, password, setPassword, onSpotCheck, detailFirst, bodyRows, width }: PreviewDetailProps) {
  const detailAll = detailLines(detail).map(inWizardWords);
  // Rows for the lines: the password field and the spot-check's result (two rows) and a "more" line aside.
  const detailRoom = bodyRows - (password !== undefined ? 1 : 0) - 2 - 1;
  const detailStart = Math.min(detailFirst, Math.max(0, detailAll.length - 1));
  const detailShown = linesThatFit(detailAll.slice(detailStart), Math.max(1, detailRoom), width);
  return (
    <Frame
      title="preview: one record"
      help={
        password !== undefined
          ? 'type the password, enter checks it · esc cancel'
          : helpLine(DETAIL_KEYS, { up: 'scroll', spotCheck: 'spot-check a password' })
      }
    >
      {detailShown.map((line, i) => (
        <Text key={i} wrap="wrap" {...(line.startsWith('error') ? theme.error : line.startsWith('warning') ? theme.warning : {})}>
          {line}
        </Text>
      ))}
      {detailShown.length < detailAll.length - detailStart ? (
        <Text {...theme.muted}>↓ {detailAll.length - detailStart - detailShown.length} more line(s)</Text>
      ) : null}
      {password !== undefined ? (
        <Field
          label="password"
          value={password}
          secret
          focus
          onChange={setPassword}
          onSubmit={(v) => {
            setPassword(undefined);
            onSpotCheck(v);
          }}
        />
      ) : null}
      {spot.status === 'running' ? <Text {...theme.muted}>checking…</Text> : null}
      {spot.status === 'done' ? (
        <Text {...(spot.value.result === 'match' ? theme.ok : theme.warning)} wrap="wrap">
          spot-check: {spot.value.result} {spot.value.detail}
        </Text>
      ) : null}
      {spot.status === 'failed' ? <Text {...theme.error}>spot-check failed: {spot.error}</Text> : null}
    </Frame>
  );
}
