import type { BaseQueryApi, QueryReturnValue } from '@reduxjs/toolkit/query';
import { api, type ApiError, type ApiArgs } from '../../lib/api';
import { clearAuth, expiryFrom, saveAuth, type AuthRecord } from '../../lib/auth-storage';
import { signedOut } from '../../lib/session';
import { normalizeUser } from '../../lib/user';

export interface LoginInput {
  email: string;
  password: string;
  remember: boolean;
}
export interface SignupInput extends LoginInput {
  name: string;
  /** From an invite link (/signup?invite=CODE); required when signups are invite-only. */
  inviteCode?: string;
}
export interface GoogleInput {
  credential: string;
  remember: boolean;
  /** Sent on Google sign-up too, so an invite-only server can create the account. */
  inviteCode?: string;
}

/** GET /api/config: what the app must know before anyone signs in. */
export interface PublicConfig {
  /** "invite" when SIGNUP_MODE=invite: the signup form asks for an invite code. */
  signupMode: 'open' | 'invite';
  /**
   * Where account mail goes: a relay ("smtp"), the development Outbox page /dev/mail
   * ("dev-outbox") or nowhere ("none"): then no screen may say a link was sent.
   */
  mailDelivery: 'smtp' | 'dev-outbox' | 'none';
  /** LLM_URL is configured: the product page offers "Generate with AI" for descriptions. */
  aiDescriptions: boolean;
}

function mailDeliveryOf(v: unknown): PublicConfig['mailDelivery'] {
  return v === 'smtp' || v === 'dev-outbox' ? v : 'none';
}

type Flow = 'Login' | 'Signup' | 'Google login';

/** Reads token (data.token, token or access_token) and user from an auth answer (spec §7). */
export function toAuthRecord(data: unknown, now = Date.now()): AuthRecord | null {
  if (!data || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  const inner = (d.data && typeof d.data === 'object' ? d.data : {}) as Record<string, unknown>;
  const token = inner.token ?? d.token ?? d.access_token ?? inner.access_token;
  if (typeof token !== 'string' || !token) return null;
  return {
    token,
    user: normalizeUser(inner.user ?? d.user),
    expiresAt: expiryFrom(d.expiresAt ?? inner.expiresAt, now),
  };
}

/**
 * Calls an auth endpoint and saves the session. Failures clear user and token and
 * reject with the message to show (spec §8). The session slice is updated by the
 * page, so it can show its success message before leaving.
 */
function authQuery<T extends LoginInput | GoogleInput>(flow: Flow, url: string) {
  return async (
    body: T,
    { dispatch }: BaseQueryApi,
    _extra: unknown,
    baseQuery: (arg: ApiArgs) => QueryReturnValue<unknown, ApiError, {}> | PromiseLike<QueryReturnValue<unknown, ApiError, {}>>,
  ): Promise<QueryReturnValue<AuthRecord, ApiError, undefined>> => {
    const fail = (message: string, status: ApiError['status'] = 'CUSTOM_ERROR') => {
      clearAuth();
      dispatch(signedOut());
      return { error: { status, message } };
    };
    const res = await baseQuery({ url, method: 'POST', body });
    if (res.error) {
      const e = res.error;
      return fail(e.message || (e.envelope ? `${flow} failed` : `${flow} failed. Please try again.`), e.status);
    }
    const record = toAuthRecord(res.data);
    if (!record) return fail(`${flow} response missing token`);
    saveAuth(record, body.remember);
    return { data: record };
  };
}

/**
 * Sign-up answers the same for a new and an already registered address and carries no
 * token (the server must not reveal which addresses have accounts; the owner of a taken
 * address is mailed instead). A new password account is signed in only from the link it is
 * mailed (/verify-email): signing in before that answers exactly like a wrong password, so
 * "sign up, then sign in with the same password" cannot tell a taken address from a new one.
 * The page shows "check your email" with the server's message.
 */
function signupQuery() {
  return async (
    body: SignupInput,
    api: BaseQueryApi,
    _extra: unknown,
    baseQuery: (arg: ApiArgs) => QueryReturnValue<unknown, ApiError, {}> | PromiseLike<QueryReturnValue<unknown, ApiError, {}>>,
  ): Promise<QueryReturnValue<{ message: string }, ApiError, undefined>> => {
    const res = await baseQuery({ url: '/auth/signup', method: 'POST', body });
    clearAuth();
    api.dispatch(signedOut());
    if (res.error) {
      const e = res.error;
      return { error: { status: e.status, message: e.message || (e.envelope ? 'Signup failed' : 'Signup failed. Please try again.') } };
    }
    const message = (res.data as { message?: unknown } | null)?.message;
    return { data: { message: typeof message === 'string' && message ? message : 'Check your email to finish creating your account.' } };
  };
}

/** Sign-in, signup, Google sign-in and password reset calls. */
export const authApi = api.injectEndpoints({
  endpoints: (build) => ({
    login: build.mutation<AuthRecord, LoginInput>({ queryFn: authQuery<LoginInput>('Login', '/auth/login') }),
    signup: build.mutation<{ message: string }, SignupInput>({ queryFn: signupQuery() }),
    /** Mails a new verification link; the answer is the same whether or not the address has an account. */
    resendVerificationFor: build.mutation<{ message: string }, { email: string }>({
      query: (body) => ({ url: '/auth/resend-verification', method: 'POST', body }),
    }),
    googleLogin: build.mutation<AuthRecord, GoogleInput>({ queryFn: authQuery<GoogleInput>('Google login', '/auth/google') }),
    getPublicConfig: build.query<PublicConfig, void>({
      query: () => ({ url: '/config' }),
      transformResponse: (raw: unknown): PublicConfig => ({
        signupMode: (raw as { signupMode?: unknown } | null)?.signupMode === 'invite' ? 'invite' : 'open',
        mailDelivery: mailDeliveryOf((raw as { mailDelivery?: unknown } | null)?.mailDelivery),
        aiDescriptions: (raw as { aiDescriptions?: unknown } | null)?.aiDescriptions === true,
      }),
    }),
    forgotPassword: build.mutation<unknown, { email: string }>({
      query: (body) => ({ url: '/auth/forgot-password', method: 'POST', body }),
    }),
    resetPassword: build.mutation<unknown, { token: string; password: string }>({
      query: (body) => ({ url: '/auth/reset-password', method: 'POST', body }),
    }),
  }),
});

export const {
  useLoginMutation,
  useSignupMutation,
  useResendVerificationForMutation,
  useGoogleLoginMutation,
  useGetPublicConfigQuery,
  useForgotPasswordMutation,
  useResetPasswordMutation,
} = authApi;
