package dev.retrykit.sample.downstream;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * The script of the flaky downstream, per service ({@code inventory}, {@code pricing}, ...): fail the
 * next N calls with a status (and a {@code Retry-After}), be down until told otherwise, or answer
 * slowly. Thread-safe.
 */
@Component
public class FlakyDownstream {

	private final Map<String, Script> scripts = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

	/**
	 * Fails the next calls of a service.
	 * @param service the service
	 * @param count how many calls fail
	 * @param status the HTTP status they answer
	 * @param retryAfterSeconds the {@code Retry-After} header to send, 0 for none
	 */
	public void failNext(String service, int count, int status, int retryAfterSeconds) {
		this.scripts.put(service, new Script(new AtomicInteger(count), status, retryAfterSeconds, false, 0));
	}

	/**
	 * Makes every call of a service fail with 503 until {@link #up} is called.
	 * @param service the service
	 */
	public void down(String service) {
		this.scripts.put(service, new Script(new AtomicInteger(), 503, 0, true, 0));
	}

	/**
	 * Makes a service answer slowly: the next {@code count} calls, or every call until {@link #up}.
	 * @param service the service
	 * @param millis the delay of each slow answer
	 * @param count how many calls answer slowly (after which it answers at once again), or -1 for every
	 * call
	 */
	public void slow(String service, long millis, int count) {
		if (count < -1) {
			throw new IllegalArgumentException("Invalid count (" + count + "): must be -1 (every call) or greater");
		}
		this.scripts.put(service, new Script(new AtomicInteger(count), 200, 0, false, millis));
	}

	/**
	 * Makes a service healthy again.
	 * @param service the service
	 */
	public void up(String service) {
		this.scripts.remove(service);
	}

	/** Makes every service healthy and forgets the call counts. */
	public void reset() {
		this.scripts.clear();
		this.calls.clear();
	}

	/**
	 * @param service the service
	 * @return how many calls it received
	 */
	public int calls(String service) {
		return this.calls.computeIfAbsent(service, key -> new AtomicInteger()).get();
	}

	/**
	 * Counts a call and says how to answer it.
	 * @param service the service called
	 * @return how to answer: a failure status, or 200 after waiting {@link Outcome#delayMillis}
	 */
	Outcome next(String service) {
		this.calls.computeIfAbsent(service, key -> new AtomicInteger()).incrementAndGet();
		Script script = this.scripts.get(service);
		// remaining counts the calls the script still applies to; -1 (slow only) means every call
		if (script == null || !script.down && script.remaining.getAndUpdate(n -> (n > 0) ? n - 1 : n) == 0) {
			return Outcome.OK;
		}
		return (script.delayMillis > 0) ? new Outcome(200, 0, script.delayMillis)
				: new Outcome(script.status, script.retryAfterSeconds, 0);
	}

	/** @return the scripts still in force (a script whose calls are used up is left out), by service */
	public Map<String, String> describe() {
		Map<String, String> description = new java.util.TreeMap<>();
		this.scripts.forEach((service, script) -> {
			if (script.down || script.remaining.get() != 0) {
				description.put(service, describe(script));
			}
		});
		return description;
	}

	private static String describe(Script script) {
		if (script.down) {
			return "down";
		}
		int remaining = script.remaining.get();
		if (script.delayMillis > 0) {
			return "slow " + script.delayMillis + "ms" + ((remaining < 0) ? "" : " for the next " + remaining + " call(s)");
		}
		return "failing next " + remaining + " call(s) with " + script.status;
	}

	record Outcome(int status, int retryAfterSeconds, long delayMillis) {

		static final Outcome OK = new Outcome(200, 0, 0);

		boolean failed() {
			return this.status >= 400;
		}

	}

	private record Script(AtomicInteger remaining, int status, int retryAfterSeconds, boolean down, long delayMillis) {
	}

}
