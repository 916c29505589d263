/**
 * Retry budgets, after gRPC's retry throttling (gRFC A6): a token bucket that failures drain and
 * successes refill, which stops retries while the downstream is failing so that retries cannot
 * amplify an outage. One {@link dev.retrykit.budget.RetryBudget} may be shared by several retry
 * instances that call the same downstream.
 */
@NullMarked
package dev.retrykit.budget;

import org.jspecify.annotations.NullMarked;
