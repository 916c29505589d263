package dev.retrykit.migrate;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.openrewrite.properties.Assertions.properties;
import static org.openrewrite.yaml.Assertions.yaml;

class Resilience4jConfigToRetrykitTests implements RewriteTest {

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new Resilience4jConfigToRetrykit());
	}

	@Test
	void retryInstancesAndConfigsMoveToRetryWithResilience4jsDefaults() {
		rewriteRun(yaml("""
				spring:
				  application:
				    name: shop
				resilience4j:
				  retry:
				    configs:
				      default:
				        maxAttempts: 4
				      slow:
				        waitDuration: 2s
				        enableExponentialBackoff: true
				        exponentialBackoffMultiplier: 3
				        exponentialMaxWaitDuration: 20s
				    instances:
				      inventory:
				        baseConfig: slow
				        retryExceptions:
				          - java.io.IOException
				          - java.util.concurrent.TimeoutException
				        ignoreExceptions:
				          - java.lang.IllegalArgumentException
				      prices:
				        max-attempts: 2
				        wait-duration: 100ms
				        enable-randomized-wait: true
				        randomized-wait-factor: 0.2
				""", """
				spring:
				  application:
				    name: shop
				retry:
				  defaults:
				    max-attempts: 4
				    backoff:
				      delay: 500ms
				      type: fixed
				      multiplier: 1.5
				      max-delay: 24h
				  configs:
				    slow:
				      backoff:
				        delay: 2s
				        type: exponential
				        multiplier: 3
				        max-delay: 20s
				  instances:
				    inventory:
				      base-config: slow
				      retry-on:
				        - java.io.IOException
				        - java.util.concurrent.TimeoutException
				      ignore:
				        - java.lang.IllegalArgumentException
				    prices:
				      max-attempts: 2
				      backoff:
				        delay: 100ms
				        jitter: 0.2
				""", (spec) -> spec.path("src/main/resources/application.yml")));
	}

	@Test
	void circuitBreakerThresholdsBecomeATripExpressionWithTheConfigChainResolved() {
		rewriteRun(yaml("""
				resilience4j:
				  circuitbreaker:
				    configs:
				      default:
				        slidingWindowSize: 10
				        registerHealthIndicator: true
				      strict:
				        failureRateThreshold: 25
				    instances:
				      payments:
				        baseConfig: strict
				        minimumNumberOfCalls: 5
				        waitDurationInOpenState: 30s
				        permittedNumberOfCallsInHalfOpenState: 2
				      search:
				        slidingWindowType: TIME_BASED
				        slidingWindowSize: 60
				        minimumNumberOfCalls: 20
				""", """
				retry:
				  instances:
				    payments:
				      circuit-breaker:
				        enabled: true
				        trip: "requests >= 5 && failureRate >= 25"
				        timeout: 30s
				        max-requests: 2
				    search:
				      circuit-breaker:
				        enabled: true
				        trip: "requests >= 20 && failureRate >= 50"
				        interval: 60s
				        timeout: 60s
				        max-requests: 10
				""", (spec) -> spec.path("src/main/resources/application.yml")));
	}

	@Test
	void settingsWithoutAnEquivalentStayWithANoteAndARow() {
		rewriteRun((spec) -> spec.dataTable(UnmappedElements.Row.class, (rows) -> assertThat(rows)
				.extracting(UnmappedElements.Row::element)
				.containsExactly("resilience4j.retry.instances.inventory.result-predicate")), yaml("""
				resilience4j:
				  retry:
				    instances:
				      inventory:
				        maxAttempts: 5
				        resultPredicate: com.example.EmptyResult
				""", """
				resilience4j:
				  retry:
				    instances:
				      inventory:
				        # retrykit-migrate: retry setting result-predicate has no retrykit equivalent
				        resultPredicate: com.example.EmptyResult
				retry:
				  instances:
				    inventory:
				      max-attempts: 5
				  defaults:
				    backoff:
				      delay: 500ms
				      type: fixed
				      multiplier: 1.5
				      max-delay: 24h
				""", (spec) -> spec.path("src/main/resources/application.yml")));
	}

	@Test
	void propertiesMoveTheSameWay() {
		rewriteRun(properties("""
				spring.application.name=shop
				resilience4j.retry.instances.inventory.max-attempts=5
				resilience4j.retry.instances.inventory.wait-duration=1s
				resilience4j.retry.instances.inventory.retry-exceptions=java.io.IOException,java.net.SocketException
				resilience4j.circuitbreaker.instances.inventory.sliding-window-size=4
				resilience4j.circuitbreaker.instances.inventory.failure-rate-threshold=50
				resilience4j.circuitbreaker.instances.inventory.wait-duration-in-open-state=10s
				""", """
				spring.application.name=shop
				retry.instances.inventory.max-attempts=5
				retry.instances.inventory.backoff.delay=1s
				retry.instances.inventory.retry-on=java.io.IOException,java.net.SocketException
				retry.instances.inventory.circuit-breaker.enabled=true
				retry.instances.inventory.circuit-breaker.trip=requests >= 4 && failureRate >= 50
				retry.instances.inventory.circuit-breaker.timeout=10s
				retry.instances.inventory.circuit-breaker.max-requests=10
				retry.defaults.backoff.delay=500ms
				retry.defaults.backoff.type=fixed
				retry.defaults.backoff.multiplier=1.5
				retry.defaults.backoff.max-delay=24h
				""", (spec) -> spec.path("src/main/resources/application.properties")));
	}

	@Test
	void aConfigWithoutResilience4jIsLeftAlone() {
		rewriteRun(yaml("""
				retry:
				  instances:
				    inventory:
				      max-attempts: 5
				""", (spec) -> spec.path("src/main/resources/application.yml")));
	}


	@Test
	void eachDocumentOfAMultiDocumentFileKeepsItsOwnSettings() {
		rewriteRun(yaml("""
				resilience4j:
				  retry:
				    instances:
				      inventory:
				        maxAttempts: 2
				---
				spring:
				  config:
				    activate:
				      on-profile: prod
				resilience4j:
				  retry:
				    instances:
				      inventory:
				        maxAttempts: 6
				""", """
				retry:
				  instances:
				    inventory:
				      max-attempts: 2
				  defaults:
				    backoff:
				      delay: 500ms
				      type: fixed
				      multiplier: 1.5
				      max-delay: 24h
				---
				spring:
				  config:
				    activate:
				      on-profile: prod
				retry:
				  instances:
				    inventory:
				      max-attempts: 6
				  defaults:
				    backoff:
				      delay: 500ms
				      type: fixed
				      multiplier: 1.5
				      max-delay: 24h
				""", (spec) -> spec.path("src/main/resources/application.yml")));
	}

}
