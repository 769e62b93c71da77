// Saving the flag editor's form: the impact preview (POST /api/v1/advanced-config/impact) shown
// for review, then the save (PATCH /api/v1/flags, compare-and-swap on the version) or, in a
// protected environment, the proposal; validation issues land at their fields, a version conflict
// is kept to be explained with a reload.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, api, unwrap } from '../../api/client';
import type { FlagRecord } from '../../api/hooks';
import { useNotify } from '../../components/notices';
import { useProposal } from '../../components/propose';
import { issuesByField, type FieldIssue } from '../../lib/pointers';
import { ADVANCED_FIELDS, bodyOf, changedFields, EDITOR_FIELDS, type FormState } from './flag-form-state';

export function useFlagSave({
  appId,
  env,
  approvals,
  flag,
  version,
  form,
  reload,
}: {
  appId: string;
  env: string;
  approvals: number;
  flag: FlagRecord | null;
  version: number | null;
  form: FormState;
  reload: () => void;
}) {
  const [issues, setIssues] = useState<Map<string, FieldIssue[]>>(new Map());
  const [reviewing, setReviewing] = useState(false);
  const [reason, setReason] = useState('');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const notify = useNotify();
  const protectedEnv = approvals > 0;
  const key = flag?.key ?? form.key;

  const showServerIssues = (error: unknown) => {
    if (error instanceof ApiError && error.body.details?.length)
      setIssues(issuesByField(error.body.details, key, EDITOR_FIELDS));
  };

  const impact = useMutation({
    mutationFn: (changed: Record<string, unknown>) => {
      const { value, type: _type, ...rest } = changed;
      const advanced = Object.fromEntries(
        Object.entries(rest).filter(([name]) => (ADVANCED_FIELDS as readonly string[]).includes(name)),
      );
      return unwrap(
        api.POST('/api/v1/advanced-config/impact', {
          body: {
            appId,
            env,
            changes: {
              ...(value !== undefined ? { flags: { [key]: value } } : {}),
              ...(Object.keys(advanced).length ? { advanced: { flags: { [key]: advanced } } } : {}),
            },
          },
        }),
      );
    },
    onError: showServerIssues,
  });

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      unwrap(api.PATCH('/api/v1/flags', { body: { appId, env, ...body } as never })),
    onSuccess: async (answer) => {
      setReviewing(false);
      notify(
        answer.changeId
          ? `${answer.flag.key} saved: version ${answer.version}.`
          : `${answer.flag.key}: nothing changed.`,
      );
      await queryClient.invalidateQueries({ queryKey: ['flags', appId, env] });
      await queryClient.invalidateQueries({ queryKey: ['flag', appId, env] });
      void navigate(`/apps/${appId}/${env}/flags/${encodeURIComponent(answer.flag.key)}`, { replace: true });
    },
    onError: (error) => {
      showServerIssues(error);
      if (!(error instanceof ApiError && error.code === 'version_conflict')) setReviewing(false);
    },
  });

  const propose = useProposal(appId, env);
  useEffect(() => {
    if (propose.isError) showServerIssues(propose.error);
  }, [propose.isError]);

  const conflict = [save.error, propose.error].find(
    (e) => e instanceof ApiError && (e.code === 'version_conflict' || e.code === 'stale_proposal'),
  ) as ApiError | undefined;

  function prepared(): { body: Record<string, unknown>; changed: Record<string, unknown> } | null {
    const { fields, issues: local } = bodyOf(form);
    setIssues(local);
    if (local.size > 0) return null;
    if (!flag) return { body: { key: form.key, op: 'create', ...fields }, changed: fields };
    const changed = changedFields(flag, fields);
    return { body: { key: flag.key, op: 'update', expectedVersion: version, ...changed }, changed };
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const ready = prepared();
    if (!ready) return;
    save.reset();
    propose.reset();
    if (!flag) {
      // A new flag affects nobody until it is read: created (or proposed) directly.
      if (protectedEnv) setReviewing(true);
      else save.mutate(ready.body);
      return;
    }
    if (Object.keys(ready.changed).length === 0) {
      notify('Nothing to save: the form equals the stored flag.');
      return;
    }
    impact.reset();
    setReviewing(true);
    if (!('type' in ready.changed)) impact.mutate(ready.changed);
  }

  function confirm() {
    const ready = prepared();
    if (!ready) return;
    if (protectedEnv) {
      const { expectedVersion: _v, ...body } = ready.body;
      propose.mutate({
        baseVersion: version ?? 0,
        change: { kind: 'flag.patch', body: body as never },
        reason: reason || undefined,
      });
    } else {
      save.mutate(ready.body);
    }
  }

  /** After a conflict: forget the failed attempt and read the flag again. */
  function reloadFlag() {
    save.reset();
    propose.reset();
    setReviewing(false);
    reload();
  }

  return {
    issues,
    reviewing,
    setReviewing,
    reason,
    setReason,
    protectedEnv,
    impact,
    save,
    propose,
    conflict,
    submit,
    confirm,
    reloadFlag,
  };
}

export type FlagSave = ReturnType<typeof useFlagSave>;
