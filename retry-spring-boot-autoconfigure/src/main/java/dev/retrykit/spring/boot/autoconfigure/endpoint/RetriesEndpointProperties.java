package dev.retrykit.spring.boot.autoconfigure.endpoint;

import java.util.HashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code retries} endpoint, under {@code management.endpoint.retries}. (Its
 * {@code access} is Boot's own setting.) Not thread-safe: bound once at startup.
 */
@ConfigurationProperties("management.endpoint.retries")
public class RetriesEndpointProperties {

	/**
	 * When to show context-cache keys, failback task keys and exception messages unmasked; they may
	 * hold method arguments and other sensitive data. Exception types are always shown.
	 */
	private Show showValues = Show.NEVER;

	/**
	 * Roles allowed to see unmasked values when show-values is when-authorized. When empty, any
	 * authenticated user is allowed.
	 */
	private Set<String> roles = new HashSet<>();

	/** @return when values are shown */
	public Show getShowValues() {
		return this.showValues;
	}

	/** @param showValues when values are shown */
	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	/** @return the roles allowed to see values under {@link Show#WHEN_AUTHORIZED} */
	public Set<String> getRoles() {
		return this.roles;
	}

	/** @param roles the roles allowed to see values under {@link Show#WHEN_AUTHORIZED} */
	public void setRoles(Set<String> roles) {
		this.roles = roles;
	}

}
