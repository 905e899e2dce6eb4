-- Stripe billing (issue 30). The subscription read model learns who pays us
-- and in what state their provider subscription is; every column is
-- projected from subscription events, so Rebuild reproduces it.
ALTER TABLE subscriptions
    ADD COLUMN billing_customer_id     text,
    ADD COLUMN billing_subscription_id text,
    ADD COLUMN billing_status          text        NOT NULL DEFAULT '',
    ADD COLUMN billing_period_end      timestamptz,
    ADD COLUMN billing_cancel_at_end   boolean     NOT NULL DEFAULT false,
    ADD COLUMN billing_grace_until     timestamptz,
    -- billing_state_at is the provider's creation time of the newest state
    -- change applied: an older delivery arriving late never overrides it.
    ADD COLUMN billing_state_at        timestamptz;
CREATE UNIQUE INDEX subscriptions_billing_customer ON subscriptions (billing_customer_id) WHERE billing_customer_id IS NOT NULL;
CREATE INDEX subscriptions_billing_paying ON subscriptions (user_id) WHERE billing_subscription_id IS NOT NULL OR billing_grace_until IS NOT NULL;

-- billing_provider_events is the exactly-once ledger of provider webhook
-- deliveries: a row is inserted in the same transaction as the domain events
-- the delivery appends, so a repeated delivery finds it and changes nothing.
-- grant_ref (a Checkout Session id) makes one payment grant at most once even
-- if it were announced under two event ids. Not a read model: never rebuilt.
CREATE TABLE billing_provider_events (
    provider    text        NOT NULL,
    event_id    text        NOT NULL,
    event_type  text        NOT NULL,
    user_id     text,
    outcome     text        NOT NULL,
    grant_ref   text,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, event_id)
);
CREATE UNIQUE INDEX billing_provider_events_grant ON billing_provider_events (provider, grant_ref) WHERE grant_ref IS NOT NULL;
