// What the source screen's fields do when entered: add an export file (its format detected), read the Firebase
// hash parameters (the signer key goes to the keys, masked), keep the provider map, step a file's format or remove
// the file, and go on to the preview. A failure is a notice naming what was typed.
import type { WizardContextValue } from '../context.js';
import { withHashConfig, type Profile } from '../../profiles/index.js';
import { formatProviderMap, parseProviderMap } from './provider-map.js';

export interface SourceFields {
  profile: Profile;
  /** The path typed in "add file" (not added yet). */
  path: string;
  setPath(path: string): void;
  setHashText(text: string): void;
}

export function sourceEdits(
  { services, actions }: Pick<WizardContextValue, 'services' | 'actions'>,
  { profile, path, setPath, setHashText }: SourceFields,
) {
  const addFile = async (value: string) => {
    if (!value.trim()) return;
    const p = services.resolvePath(value.trim());
    try {
      const format = await services.detectFormat(p);
      actions.updateProfile({ ...profile, sources: [...profile.sources, { path: p, format }] });
      setPath('');
      actions.notice('info', `added ${p} (detected ${format})`);
    } catch (err) {
      // The field is emptied, so the next path is typed fresh instead of being appended to the one that failed.
      setPath('');
      actions.notice('error', `${value.trim()}: ${(err as Error).message}`);
    }
  };
  const parseHash = async (text: string) => {
    if (!text.trim()) return;
    try {
      const { hashConfig, signerKey } = await services.parseHashConfig(text);
      const next = withHashConfig(profile, hashConfig, signerKey);
      actions.updateProfile(next);
      if (signerKey) actions.typeSecret('signerKey', signerKey);
      setHashText('');
      const kept = next.secrets.signerKey.store === 'file' ? 'kept in the secrets file (0600)' : 'kept as chosen on the keys screen';
      actions.notice(
        'info',
        signerKey ? `hash parameters read; the signer key went to the keys (masked), ${kept}` : 'hash parameters read',
      );
    } catch (err) {
      actions.notice('error', (err as Error).message);
    }
  };
  const saveProviders = (text: string) => {
    const map = parseProviderMap(text);
    if (!map) return actions.notice('error', 'write the provider map as source=target pairs: google.com=google, apple.com=apple');
    actions.updateProfile({ ...profile, providerMap: Object.keys(map).length > 0 ? map : undefined });
    actions.notice('info', Object.keys(map).length > 0 ? `provider map: ${formatProviderMap(map)}` : 'default provider map');
  };
  const proceed = () => {
    if (path.trim()) return actions.notice('error', `${path.trim()} is typed in "add file" but not added: enter there adds it`);
    if (profile.sources.length === 0) return actions.notice('error', 'add at least one export file first');
    actions.go('preview');
    void actions.validate();
  };
  /** The file's format stepped to the next (1) or the previous (-1) of the formats the services read. */
  const stepFormat = (index: number, direction: 1 | -1) => {
    const formats = services.formats;
    const sources = [...profile.sources];
    const s = sources[index]!;
    const i = formats.indexOf(s.format ?? '');
    sources[index] = { ...s, format: formats[(i + (direction > 0 ? 1 : formats.length - 1)) % formats.length] };
    actions.updateProfile({ ...profile, sources });
  };
  const removeFile = (index: number) => actions.updateProfile({ ...profile, sources: profile.sources.filter((_, i) => i !== index) });
  return { addFile, parseHash, saveProviders, stepFormat, removeFile, proceed };
}
