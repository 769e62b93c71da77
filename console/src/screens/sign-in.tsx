// Sign up and sign in with POST /api/v1/cli-token: the token is kept for this tab, no cookie.
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { setSession } from '../auth/session';
import { useSession } from '../auth/use-session';
import { ErrorMessage } from '../components/states';

export function SignInScreen({ mode }: { mode: 'signIn' | 'signUp' }) {
  const session = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const next = params.get('next');
  const target = next && next.startsWith('/') && !next.startsWith('//') ? next : '/apps';
  const login = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/cli-token', { body: { flow: mode, email, password } })),
    onSuccess: (answer) => {
      setSession({
        token: answer.token,
        email: answer.user.email,
        userId: answer.user.id,
        expiresAt: answer.expiresAt,
      });
      void navigate(target, { replace: true });
    },
  });
  if (session && !login.isSuccess) return <Navigate to={target} replace />;
  const title = mode === 'signIn' ? 'Sign in to Ensign' : 'Create an Ensign account';

  function submit(event: FormEvent) {
    event.preventDefault();
    login.mutate();
  }

  return (
    <main className="auth" id="main">
      <h1>{title}</h1>
      <form className="form card" onSubmit={submit} noValidate={false}>
        <label className="field">
          <span>E-mail</span>
          <input
            type="email"
            name="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            type="password"
            name="password"
            autoComplete={mode === 'signIn' ? 'current-password' : 'new-password'}
            minLength={8}
            maxLength={256}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-describedby="password-help"
          />
          <small id="password-help" className="muted">
            8 to 256 characters.
          </small>
        </label>
        {login.isError && (
          <ErrorMessage error={login.error} title={mode === 'signIn' ? 'Could not sign in' : 'Could not sign up'} />
        )}
        <button type="submit" className="button button-primary" disabled={login.isPending}>
          {login.isPending ? 'Working…' : mode === 'signIn' ? 'Sign in' : 'Sign up'}
        </button>
      </form>
      <p>
        {mode === 'signIn' ? (
          <>
            New to Ensign?{' '}
            <Link to={`/sign-up${next ? `?next=${encodeURIComponent(next)}` : ''}`}>Create an account</Link>
          </>
        ) : (
          <>
            Have an account? <Link to={`/sign-in${next ? `?next=${encodeURIComponent(next)}` : ''}`}>Sign in</Link>
          </>
        )}
      </p>
    </main>
  );
}
