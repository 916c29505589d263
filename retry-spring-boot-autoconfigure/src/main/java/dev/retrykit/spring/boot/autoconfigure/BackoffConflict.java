package dev.retrykit.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.retrykit.backoff.BackoffType;
import dev.retrykit.spring.boot.convert.CompoundDurationConverter;
import org.jspecify.annotations.Nullable;

/**
 * Reports a backoff group whose settings are each valid but together break a rule that spans two of
 * them: max-delay must not be shorter than delay, and an exponential type needs a multiplier of 1.0 or
 * greater. One of the two values may be inherited (from a base config, the defaults or the built-in
 * defaults), so the failure names the property that this group sets, with the value the user wrote,
 * and gives the other one's effective value and where it was set. Immutable.
 *
 * @param chain the group that failed and the groups it inherits from
 * @param path the property path of the backoff group, e.g. {@code retry.instances.inventory.backoff}
 * @param cause the core builder's failure
 */
record BackoffConflict(BaseConfigChain chain, String path, IllegalArgumentException cause) {

	private static final String NOT_MULTIPLYING = Arrays.stream(BackoffType.values())
		.filter(type -> !type.isExponential())
		.map(BackoffType::getId)
		.collect(Collectors.joining(", "));

	/**
	 * @param delay the effective delay
	 * @param maxDelay the effective max-delay, shorter than the delay
	 * @return the failure, naming max-delay if this group sets it, else delay
	 */
	InvalidRetryPropertyException delays(Duration delay, Duration maxDelay) {
		RetryInstanceProperties.Backoff own = this.chain.own().getBackoff();
		String delayPath = this.path + ".delay";
		String maxDelayPath = this.path + ".max-delay";
		if (own.getMaxDelay() != null && own.getDelay() != null) {
			return InvalidRetryPropertyException.of(maxDelayPath, format(maxDelay), this.cause);
		}
		if (own.getMaxDelay() != null) {
			return new InvalidRetryPropertyException(maxDelayPath, format(maxDelay),
					"must be greater than or equal to delay ("
							+ format(delay) + ", " + origin("delay", RetryInstanceProperties.Backoff::getDelay) + ")",
					"Update '" + maxDelayPath + "' to " + format(delay) + " or more, or set '" + delayPath + "' to "
							+ format(maxDelay) + " or less.", this.cause);
		}
		return new InvalidRetryPropertyException(delayPath, format(delay),
				"must not be longer than max-delay (" + format(maxDelay) + ", "
						+ origin("max-delay", RetryInstanceProperties.Backoff::getMaxDelay) + ")",
				"Update '" + delayPath + "' to " + format(maxDelay) + " or less, or set '" + maxDelayPath + "' to "
						+ format(delay) + " or more.", this.cause);
	}

	/**
	 * @param type the effective type, an exponential one
	 * @param multiplier the effective multiplier, less than 1.0
	 * @return the failure, naming multiplier if this group sets it, else type
	 */
	InvalidRetryPropertyException multiplier(BackoffType type, double multiplier) {
		RetryInstanceProperties.Backoff own = this.chain.own().getBackoff();
		String multiplierPath = this.path + ".multiplier";
		String typePath = this.path + ".type";
		String action = "Update '" + multiplierPath + "' to 1.0 or greater, or set '" + typePath
				+ "' to a type that does not multiply the delay: " + NOT_MULTIPLYING + ".";
		if (own.getMultiplier() != null) {
			String typeOrigin = (own.getType() != null) ? ""
					: " (" + origin("type", RetryInstanceProperties.Backoff::getType) + ")";
			return new InvalidRetryPropertyException(multiplierPath, own.getMultiplier(),
					"must be 1.0 or greater for backoff type '"
							+ type.getId() + "'" + typeOrigin, action, this.cause);
		}
		return new InvalidRetryPropertyException(typePath, own.getType(),
				"must be one that does not multiply the delay ("
						+ NOT_MULTIPLYING + ") while multiplier (" + multiplier + ", "
						+ origin("multiplier", RetryInstanceProperties.Backoff::getMultiplier) + ") is less than 1.0",
				action, this.cause);
	}

	/** Says where an inherited backoff setting comes from. */
	private String origin(String property, Function<RetryInstanceProperties.Backoff, @Nullable Object> getter) {
		BaseConfigChain.Setting<Object> setting = this.chain.inherited(group -> getter.apply(group.getBackoff()));
		return (setting != null) ? "inherited from '" + setting.groupPath() + ".backoff." + property + "'"
				: "the built-in default";
	}

	private static String format(Duration duration) {
		return CompoundDurationConverter.format(duration);
	}

}
