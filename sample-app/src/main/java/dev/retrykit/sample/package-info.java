/**
 * A Spring Boot service that calls a scripted flaky downstream through retrykit.
 */
package dev.retrykit.sample;
