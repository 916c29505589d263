/**
 * The sample's clients of the flaky downstream, one per retrykit feature.
 */
package dev.retrykit.sample.client;
