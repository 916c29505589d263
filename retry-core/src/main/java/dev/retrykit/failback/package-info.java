/**
 * Failback: fire-and-forget operations retried in the background on the timing wheel, at most one
 * pending task per key (Apache Dubbo's failback registry semantics).
 */
@NullMarked
package dev.retrykit.failback;

import org.jspecify.annotations.NullMarked;
