/**
 * The sample's own HTTP API.
 */
package dev.retrykit.sample.shop;
