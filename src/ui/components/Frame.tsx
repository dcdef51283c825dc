// The frame every screen sits in: a title line with the step, the body (clipped to fit), a notice line and the
// whole help footer.
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { useWizard } from '../context.js';
import { STEPS } from '../state/types.js';
import { theme } from '../theme.js';
import { inWizardWords } from '../wizard-words.js';

export function Frame({ title, help, children }: { title: string; help: string; children: ReactNode }) {
  const { state, size } = useWizard();
  const index = STEPS.indexOf(state.step) + 1;
  const profile = state.profile ? ` · profile ${state.profile.name}` : '';
  const width = Math.max(40, size.columns);
  return (
    <Box flexDirection="column" width={width} height={Math.max(10, size.rows - 1)}>
      <Box flexShrink={0}>
        <Text {...theme.title} wrap="truncate-end">
          auth-migrate · {index}/{STEPS.length} {title}
          {profile}
        </Text>
      </Box>
      {/* The body keeps its natural height and is clipped at the frame's: a screen taller than the terminal is cut
          at its bottom instead of drawn over itself (Ink cannot redraw rows scrolled off), and the footer stays. */}
      <Box flexDirection="column" flexGrow={1} flexShrink={1} marginTop={1} overflow="hidden">
        <Box flexDirection="column" flexShrink={0}>
          {children}
        </Box>
      </Box>
      {state.notice ? (
        <Box flexShrink={0}>
          <Text {...(state.notice.kind === 'error' ? theme.error : theme.ok)} wrap="wrap">
            {inWizardWords(state.notice.text)}
          </Text>
        </Box>
      ) : null}
      {/* The key help wraps (two rows at 60 columns) rather than losing its last keys. */}
      <Box flexShrink={0}>
        <Text {...theme.footer} wrap="wrap">
          {help}
        </Text>
      </Box>
    </Box>
  );
}
