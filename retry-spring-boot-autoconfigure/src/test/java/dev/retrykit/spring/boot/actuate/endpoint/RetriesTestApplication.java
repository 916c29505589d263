package dev.retrykit.spring.boot.actuate.endpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.Principal;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A small application for the HTTP tests: a registry in virtual time whose instances have been used
 * in a known way at startup (including {@code audit}, created by its failback executor, with one task
 * exhausted and one pending), and a filter that authenticates a request from its {@code X-User} and
 * {@code X-Roles} headers (standing in for Spring Security, which the tests do not need). No
 * component scan, so that the configurations nested in other tests stay out. No Redis either: Boot's Redis
 * auto-configuration, on this module's class path for the cluster on Redis, would add a health contributor
 * for a server these tests do not run.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
class RetriesTestApplication {

	@Bean
	VirtualTime virtualTime() {
		return new VirtualTime();
	}

	@Bean
	RetryRegistry retryRegistry(VirtualTime time) throws IOException {
		RetryRegistry registry = TestRetryRegistries.create(time);
		RetryTemplate inventory = registry.template("inventory");
		inventory.execute((context) -> "in stock");
		inventory.execute((context) -> {
			if (context.getRetryCount() == 0) {
				throw new IOException("connection reset");
			}
			return "in stock after a retry";
		});
		TestRetryRegistries.failStatefully(registry, TestRetryRegistries.SECRET);
		TestRetryRegistries.openPaymentsCircuit(registry);
		TestRetryRegistries.fail(registry.template("search"), "search down");
		// audit has the defaults: 3 attempts, 100ms then 200ms apart, so the first task is exhausted
		// 300ms after it is submitted; the second, submitted after the 5s advance, waits 100ms for its retry.
		Runnable failing = () -> {
			throw new UncheckedIOException("rejected " + TestRetryRegistries.SECRET, new IOException());
		};
		registry.failback("audit").submit("audit-1 " + TestRetryRegistries.SECRET, failing);
		time.advance(Duration.ofSeconds(5));
		registry.failback("audit").submit("audit-2 " + TestRetryRegistries.SECRET, failing);
		return registry;
	}

	@Bean
	Filter testAuthenticationFilter() {
		return (request, response, chain) -> {
			String user = ((HttpServletRequest) request).getHeader("X-User");
			if (user == null) {
				chain.doFilter(request, response);
				return;
			}
			String roles = ((HttpServletRequest) request).getHeader("X-Roles");
			List<String> granted = (roles != null) ? Arrays.asList(roles.split(",")) : List.of();
			chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {

				@Override
				public Principal getUserPrincipal() {
					return () -> user;
				}

				@Override
				public boolean isUserInRole(String role) {
					return granted.contains(role);
				}

			}, response);
		};
	}

}
