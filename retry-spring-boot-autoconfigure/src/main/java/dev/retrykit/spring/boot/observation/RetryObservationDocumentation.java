package dev.retrykit.spring.boot.observation;

import java.util.function.Supplier;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of retried calls and their keys. Each call is a {@code retry.call} observation
 * (its timer gives call latency per instance and outcome) and each of its attempts a
 * {@code retry.attempt} observation whose parent is the call's, also when the attempt runs on another
 * thread; with Micrometer Tracing each attempt is a span under its call's span and the backoff is the
 * gap between them. The copies of a hedged call are attempts side by side, told apart by the key
 * {@code hedged}.
 */
public enum RetryObservationDocumentation implements ObservationDocumentation {

	/** One retried call, from before its first attempt to its end (after recovery, if any). */
	RETRY_CALL(DefaultRetryObservationConvention.class, CallKeyNames::values, () -> new KeyName[0]),

	/** One attempt of a call, child of the call's observation. */
	RETRY_ATTEMPT(DefaultRetryAttemptObservationConvention.class, AttemptKeyNames::values,
			AttemptHighCardinalityKeyNames::values);

	private final Class<? extends ObservationConvention<? extends Observation.Context>> defaultConvention;

	/** A fresh array on each call, as an enum's {@code values()} is: a caller may change the one it gets. */
	private final Supplier<KeyName[]> lowCardinalityKeyNames;

	private final Supplier<KeyName[]> highCardinalityKeyNames;

	RetryObservationDocumentation(Class<? extends ObservationConvention<? extends Observation.Context>> defaultConvention,
			Supplier<KeyName[]> lowCardinalityKeyNames, Supplier<KeyName[]> highCardinalityKeyNames) {
		this.defaultConvention = defaultConvention;
		this.lowCardinalityKeyNames = lowCardinalityKeyNames;
		this.highCardinalityKeyNames = highCardinalityKeyNames;
	}

	@Override
	public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
		return this.defaultConvention;
	}

	@Override
	public KeyName[] getLowCardinalityKeyNames() {
		return this.lowCardinalityKeyNames.get();
	}

	@Override
	public KeyName[] getHighCardinalityKeyNames() {
		return this.highCardinalityKeyNames.get();
	}

	/** Low-cardinality keys of {@code retry.call}. */
	public enum CallKeyNames implements KeyName {

		/** The retry instance's name. */
		NAME {
			@Override
			public String asString() {
				return "name";
			}
		},

		/** How the call ended: a {@link RetryCallOutcome#value()}. */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		},

		/** The simple class name of the failure behind the outcome, or {@code none}. */
		EXCEPTION {
			@Override
			public String asString() {
				return "exception";
			}
		}

	}

	/** Low-cardinality keys of {@code retry.attempt}. */
	public enum AttemptKeyNames implements KeyName {

		/** The retry instance's name. */
		NAME {
			@Override
			public String asString() {
				return "name";
			}
		},

		/**
		 * The simple class name of the attempt's failure, or {@code none}; {@code CancellationException}
		 * for a hedged call's copy that was still in flight when the call ended.
		 */
		EXCEPTION {
			@Override
			public String asString() {
				return "exception";
			}
		},

		/**
		 * Whether the attempt is a hedge: {@code true} for every copy of a hedged call after the first,
		 * {@code false} otherwise.
		 */
		HEDGED {
			@Override
			public String asString() {
				return "hedged";
			}
		}

	}

	/** High-cardinality keys of {@code retry.attempt}. */
	public enum AttemptHighCardinalityKeyNames implements KeyName {

		/** The attempt's number, 1 for the first. */
		ATTEMPT {
			@Override
			public String asString() {
				return "attempt";
			}
		}

	}

}
