// Step 6: what will be called for how many users; look at the dry run, or run.
import { Box, Text } from 'ink';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { helpLine, type Command } from '../keymap.js';
import { theme } from '../theme.js';

const KEYS: Command[] = ['dryRun', 'run', 'back'];

export function PlanScreen() {
  const { state, actions, size } = useWizard();
  const plan = state.plan;
  useKeys(KEYS, (c) => {
    if (c === 'back') actions.back();
    else if (plan.status !== 'done') actions.notice('error', 'the plan is not ready yet');
    else if (c === 'dryRun') actions.showDryRun();
    else if (c === 'run') {
      if (plan.value.users === 0) actions.notice('error', 'nothing to migrate');
      else actions.run();
    }
  });
  const target = state.target.status === 'done' ? state.target.value : undefined;
  return (
    <Frame title="plan" help={helpLine(KEYS, { dryRun: 'dry run (show the steps, write nothing)', run: 'run the migration' })}>
      {plan.status === 'running' ? <Text {...theme.muted}>planning every valid record…</Text> : null}
      {plan.status === 'failed' ? <Text {...theme.error}>{plan.error}</Text> : null}
      {plan.status === 'done' ? (
        <>
          <Text>
            {plan.value.users} users to migrate in {plan.value.totalCalls} calls to {target?.sandbox ? 'the sandbox' : target?.url}; {plan.value.skipped} records skipped
          </Text>
          <Box flexDirection="column" marginTop={1}>
            {plan.value.calls.map((c) => (
              <Text key={c.what} wrap="truncate-end">
                {String(c.count).padStart(7)} × {c.what}
              </Text>
            ))}
          </Box>
          {state.dryRun ? (
            <Box flexDirection="column" marginTop={1}>
              <Text {...theme.title}>dry run: nothing was written</Text>
              {plan.value.sample.slice(0, Math.max(3, size.rows - 10 - plan.value.calls.length)).map((line, i) => (
                <Text key={i} {...theme.muted} wrap="truncate-end">
                  {line}
                </Text>
              ))}
            </Box>
          ) : null}
        </>
      ) : null}
    </Frame>
  );
}
