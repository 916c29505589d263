package dev.retrykit.sample.downstream;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The script of the flaky downstream, per service ({@code inventory}, {@code pricing}, ...): fail the
 * next N calls with a status (and a {@code Retry-After}), be down until told otherwise, or answer
 * slowly. Apart from the script, a service may have stragglers: one call in N answers late, the others
 * at once, as a server with a long latency tail does. The {@code search} service has them from the
 * start, as {@code sample.downstream.straggler-every} and {@code sample.downstream.straggler-delay} say.
 * Thread-safe.
 */
@Component
public class FlakyDownstream {

	/** The service whose stragglers the {@code sample.downstream.straggler-*} properties configure. */
	public static final String SEARCH = "search";

	private final Map<String, Script> scripts = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

	private final Map<String, Stragglers> stragglers = new ConcurrentHashMap<>();

	/** The stragglers of {@link #SEARCH} as configured, which {@link #reset()} restores; or {@code null}. */
	private final @Nullable Stragglers configuredStragglers;

	/** A downstream without stragglers. */
	public FlakyDownstream() {
		this.configuredStragglers = null;
	}

	/**
	 * A downstream whose {@code search} service has stragglers.
	 * @param stragglerEvery one call in how many is a straggler; 0 for none
	 * @param stragglerDelay how late a straggler answers
	 */
	@Autowired
	public FlakyDownstream(@Value("${sample.downstream.straggler-every:0}") int stragglerEvery,
			@Value("${sample.downstream.straggler-delay:200ms}") Duration stragglerDelay) {
		this.configuredStragglers = (stragglerEvery != 0) ? Stragglers.of(stragglerEvery, stragglerDelay.toMillis()) : null;
		reset();
	}

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

	/**
	 * Makes one call in {@code every} of a service a straggler, counting from its first call: calls
	 * {@code every}, {@code 2·every}, ... answer after {@code millis}, the others at once. A script in force
	 * ({@link #failNext}, {@link #down}, {@link #slow}) decides first.
	 * @param service the service
	 * @param every one call in how many is a straggler, 1 or more; 0 for none
	 * @param millis how late a straggler answers, 1 or more
	 */
	public void stragglers(String service, int every, long millis) {
		if (every == 0) {
			this.stragglers.remove(service);
		}
		else {
			this.stragglers.put(service, Stragglers.of(every, millis));
		}
	}

	/** Makes every service healthy, forgets the call counts and restores the configured stragglers. */
	public void reset() {
		this.scripts.clear();
		this.calls.clear();
		this.stragglers.clear();
		if (this.configuredStragglers != null) {
			this.stragglers.put(SEARCH, this.configuredStragglers);
		}
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
		int call = this.calls.computeIfAbsent(service, key -> new AtomicInteger()).incrementAndGet();
		Script script = this.scripts.get(service);
		// remaining counts the calls the script still applies to; -1 (slow only) means every call
		if (script == null || !script.down && script.remaining.getAndUpdate(n -> (n > 0) ? n - 1 : n) == 0) {
			Stragglers late = this.stragglers.get(service);
			return (late != null && call % late.every == 0) ? new Outcome(200, 0, late.delayMillis) : Outcome.OK;
		}
		return (script.delayMillis > 0) ? new Outcome(200, 0, script.delayMillis)
				: new Outcome(script.status, script.retryAfterSeconds, 0);
	}

	/** {@return the services that have stragglers, and how many of their calls answer how late} */
	public Map<String, String> describeStragglers() {
		Map<String, String> description = new TreeMap<>();
		this.stragglers.forEach((service, late) -> description.put(service,
				"one call in " + late.every + " answers after " + late.delayMillis + "ms"));
		return description;
	}

	/** @return the scripts still in force (a script whose calls are used up is left out), by service */
	public Map<String, String> describe() {
		Map<String, String> description = new TreeMap<>();
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

	private record Stragglers(int every, long delayMillis) {

		static Stragglers of(int every, long delayMillis) {
			if (every < 0) {
				throw new IllegalArgumentException("Invalid every (" + every + "): must be 1 or more, or 0 for no stragglers");
			}
			if (delayMillis < 1) {
				throw new IllegalArgumentException("Invalid straggler delay (" + delayMillis + "ms): must be 1ms or more");
			}
			return new Stragglers(every, delayMillis);
		}

	}

}
