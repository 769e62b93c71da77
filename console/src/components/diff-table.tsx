// The structured diff every versions, rollback, impact and proposal answer carries.
import { shortJson } from '../lib/format';

export interface DiffEntry {
  op: string;
  resourceType: string;
  key: string;
  path: string;
  before?: unknown;
  after?: unknown;
}

export function DiffTable({ changes, caption }: { changes: DiffEntry[]; caption: string }) {
  if (changes.length === 0) return <p className="muted">No changes.</p>;
  return (
    <div className="table-scroll">
      <table className="table diff">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Change</th>
            <th scope="col">What</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((c, i) => (
            <tr key={`${c.resourceType}/${c.key}/${c.path}/${i}`} className={`diff-${c.op}`}>
              <td>
                <span className={`badge badge-${c.op}`}>{c.op}</span>
              </td>
              <td>
                <code>
                  {c.resourceType === 'flag' ? '' : `${c.resourceType}:`}
                  {c.key}
                  {c.path}
                </code>
              </td>
              <td>
                <code className="diff-value">{'before' in c ? shortJson(c.before, 120) : '—'}</code>
              </td>
              <td>
                <code className="diff-value">{'after' in c ? shortJson(c.after, 120) : '—'}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
