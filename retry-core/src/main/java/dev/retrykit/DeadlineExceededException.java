package dev.retrykit;

import java.io.Serial;

/**
 * What a call fails with when its {@link Deadline} had already passed when it was called: it ran no
 * attempt (its caller no longer waits for an answer) and counted a rejection with reason
 * {@code deadline}. A recovery, if the call has one, runs with it as the last failure. A call whose
 * deadline passes after its first attempt ends with that attempt's (its last) failure instead.
 */
public class DeadlineExceededException extends RuntimeException {

	@Serial
	private static final long serialVersionUID = 1L;

	/**
	 * Makes the failure of a call whose deadline had passed before its first attempt.
	 * @param message what was refused, naming the instance and how long ago the deadline passed
	 */
	public DeadlineExceededException(String message) {
		super(message);
	}

}
