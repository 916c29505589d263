/**
 * A scripted flaky downstream served by the sample itself.
 */
@NullMarked
package dev.retrykit.sample.downstream;

import org.jspecify.annotations.NullMarked;
