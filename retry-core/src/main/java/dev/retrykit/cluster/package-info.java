/**
 * State shared by a service's replicas through a {@link dev.retrykit.spi.ClusterEngine}: stateful
 * contexts, retry budgets and circuit transitions. {@link dev.retrykit.cluster.RetryCluster} keeps the
 * calls' hot paths local and bounds every wait on the engine; when the engine is unreachable the
 * replica goes on with local state and counts a fallback.
 */
@NullMarked
package dev.retrykit.cluster;

import org.jspecify.annotations.NullMarked;
