package dev.retrykit.spring.boot.autoconfigure;

import dev.retrykit.spring.boot.convert.CompoundDuration;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/** Retry budget settings; setting any of them gives the instance a budget unless {@code enabled} is false. */
public class BudgetProperties {

	/**
	 * Whether retries are limited by a budget (a token bucket, or a ratio budget when ratio is set); unset =
	 * yes if the base has one or any other setting of this group is given. The settings are validated even
	 * when false.
	 */
	private @Nullable Boolean enabled;

	/**
	 * Token bucket: tokens the budget starts with; a retry may start only while more than half remain.
	 * Default 10. Not together with ratio.
	 */
	private @Nullable Integer maxTokens;

	/** Token bucket: tokens a success gives back (each failed attempt takes 1). Default 0.1. Not together with ratio. */
	private @Nullable Double tokenRatio;

	/**
	 * Ratio budget (setting it chooses this kind): retries may be up to this share of the calls started in
	 * the last window (e.g. 0.2), plus the reserve of min-per-second; greater than 0 and at most 10. Not
	 * together with max-tokens or token-ratio.
	 */
	private @Nullable Double ratio;

	/**
	 * Ratio budget: the reserve for low traffic, in retries per second beyond the ratio (min-per-second x
	 * window in all, the fleet's in cluster scope); 0 or more. Default 10.
	 */
	private @Nullable Integer minPerSecond;

	/** Ratio budget: how long a call (and a retry) counts, from 1s to 60s. Default 10s. */
	@CompoundDuration
	private @Nullable Duration window;

	/** Name under which the budget is shared by instances; unset = the instance's own name. */
	private @Nullable String name;

	/** Whether the budget is this replica's own (local) or one budget shared by every replica (cluster, needs retry.cluster.enabled). Default local. */
	private RetryInstanceProperties.@Nullable Scope scope;

	public RetryInstanceProperties.@Nullable Scope getScope() {
		return this.scope;
	}

	public void setScope(RetryInstanceProperties.@Nullable Scope scope) {
		this.scope = scope;
	}

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable Integer getMaxTokens() {
		return this.maxTokens;
	}

	public void setMaxTokens(@Nullable Integer maxTokens) {
		this.maxTokens = maxTokens;
	}

	public @Nullable Double getTokenRatio() {
		return this.tokenRatio;
	}

	public void setTokenRatio(@Nullable Double tokenRatio) {
		this.tokenRatio = tokenRatio;
	}

	public @Nullable String getName() {
		return this.name;
	}

	public void setName(@Nullable String name) {
		this.name = name;
	}

	public @Nullable Double getRatio() {
		return this.ratio;
	}

	public void setRatio(@Nullable Double ratio) {
		this.ratio = ratio;
	}

	public @Nullable Integer getMinPerSecond() {
		return this.minPerSecond;
	}

	public void setMinPerSecond(@Nullable Integer minPerSecond) {
		this.minPerSecond = minPerSecond;
	}

	public @Nullable Duration getWindow() {
		return this.window;
	}

	public void setWindow(@Nullable Duration window) {
		this.window = window;
	}

}
