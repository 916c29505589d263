/**
 * A scripted flaky downstream served by the sample itself.
 */
package dev.retrykit.sample.downstream;
