package dev.retrykit.spring.boot.autoconfigure.health;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code retries} health contributor, under {@code management.health.retries}. (Its
 * {@code enabled} flag is read by Boot's health-indicator condition.) Not thread-safe: bound once at
 * startup.
 */
@ConfigurationProperties("management.health.retries")
public class RetriesHealthIndicatorProperties {

	/**
	 * Whether an open circuit breaker makes the retries health DOWN. By default open circuits are
	 * reported in the details while the status stays UP. Half-open circuits never make it DOWN.
	 */
	private boolean downWhenOpen;

	/** @return whether an open circuit makes the status DOWN */
	public boolean isDownWhenOpen() {
		return this.downWhenOpen;
	}

	/** @param downWhenOpen whether an open circuit makes the status DOWN */
	public void setDownWhenOpen(boolean downWhenOpen) {
		this.downWhenOpen = downWhenOpen;
	}

}
