// The frame every screen sits in: a title line with the step, the body, one notice line and the help footer.
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { useWizard } from '../context.js';
import { STEPS } from '../state/types.js';
import { theme } from '../theme.js';

export function Frame({ title, help, children }: { title: string; help: string; children: ReactNode }) {
  const { state, size } = useWizard();
  const index = STEPS.indexOf(state.step) + 1;
  const profile = state.profile ? ` · profile ${state.profile.name}` : '';
  const width = Math.max(40, size.columns);
  return (
    <Box flexDirection="column" width={width} height={Math.max(10, size.rows - 1)}>
      <Text {...theme.title} wrap="truncate-end">
        auth-migrate · {index}/{STEPS.length} {title}
        {profile}
      </Text>
      <Box flexDirection="column" flexGrow={1} marginTop={1}>
        {children}
      </Box>
      {state.notice ? (
        <Text {...(state.notice.kind === 'error' ? theme.error : theme.ok)} wrap="wrap">
          {state.notice.text}
        </Text>
      ) : null}
      <Text {...theme.footer} wrap="truncate-end">
        {help}
      </Text>
    </Box>
  );
}
