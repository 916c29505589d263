/**
 * Retried HTTP clients by configuration: the {@code ClientHttpRequestInterceptor} (RestClient, RestTemplate) and
 * the {@code ExchangeFilterFunction} (WebClient) that run a call through the instance whose
 * {@code http.hosts} or {@code http.service-groups} claims it, and the routes that say which one does.
 */
@NullMarked
package dev.retrykit.spring.boot.http.client;

import org.jspecify.annotations.NullMarked;
