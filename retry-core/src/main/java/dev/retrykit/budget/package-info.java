/**
 * Retry budgets, which stop retries while a downstream is failing so that retries cannot amplify an
 * outage, of two kinds: a token bucket after gRPC's retry throttling (gRFC A6), which failures drain and
 * successes refill, and a ratio of the recent calls after Finagle's {@code RetryBudget}, with a reserve for
 * low traffic. One {@link dev.retrykit.budget.RetryBudget} may be shared by several retry instances that
 * call the same downstream, and by a service's replicas ({@code dev.retrykit.cluster.RetryCluster}).
 */
@NullMarked
package dev.retrykit.budget;

import org.jspecify.annotations.NullMarked;
