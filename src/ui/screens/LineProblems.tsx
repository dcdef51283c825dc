// The lines or rows of the files that could not be read as users (bad JSON, a CSV row that does not fit...):
// listed one by one, wrapped, on the preview's `lines` filter, so each can be found and fixed in the file.
import { Text } from 'ink';
import { formatProblem, type Problem } from '../../records/types.js';
import { theme } from '../theme.js';

/** The problems of no record in a validation report (the wizard's preview report keeps them apart). */
export function LineProblems(props: { problems: Problem[]; first: number; rows: number; width: number; omitted: number }) {
  const { problems, first, omitted } = props;
  if (problems.length === 0) return <Text {...theme.muted}> every line of the files was read as a user record</Text>;
  const shown = fitting(problems, first, props.rows - 2, props.width);
  const count = shown.length;
  const after = problems.length - first - shown.length;
  return (
    <>
      <Text {...theme.error}>
        {problems.length} line{problems.length === 1 ? '' : 's'} could not be read as users (not migrated)
        {problems.length > count ? ` · ${first + 1}-${first + count} shown, ↑/↓` : ''}
      </Text>
      {shown.map((p, i) => (
        <Text key={first + i} wrap="wrap" {...(p.severity === 'error' ? theme.error : theme.warning)}>
          {formatProblem(p)}
        </Text>
      ))}
      {after > 0 || omitted > 0 ? (
        <Text {...theme.muted} wrap="wrap">
          {after > 0 ? `… ${after} more below` : ''}
          {omitted > 0
            ? `${after > 0 ? '; ' : ''}${omitted} problems past the list's bound: \`auth-migrate validate\` lists every one`
            : ''}
        </Text>
      ) : null}
    </>
  );
}

/** The problems from `first` whose wrapped lines fit in `rows` rows of `width` columns (at least one). */
export function fitting(problems: Problem[], first: number, rows: number, width: number): Problem[] {
  const out: Problem[] = [];
  let used = 0;
  for (const p of problems.slice(first)) {
    const need = Math.ceil(formatProblem(p).length / Math.max(20, width));
    if (out.length > 0 && used + need > rows) break;
    out.push(p);
    used += need;
  }
  return out;
}

/** One line for the summary: how many lines could not be read, and how to list them. */
export function lineProblemsHint(count: number): string | undefined {
  if (count === 0) return undefined;
  return `${count} line${count === 1 ? '' : 's'} could not be read as users: f until "lines" lists them`;
}
