package dev.retrykit.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * One million pending async retries, per contender (see {@link ScaleContender}): what each pending retry
 * holds on the heap, how many threads it takes, what scheduling and cancelling cost, what is still held
 * once every call is cancelled, and whether a cancelled retry still runs.
 *
 * <p>Run from the shaded jar: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.retrykit.benchmarks.PendingRetriesScale [count] [--forks N] [--gc default|parallel|both]
 * [--pre-touch] [--only NAME,...]} (see {@link #FORKS}, {@link #GC}, {@link #PRE_TOUCH} and {@link #ONLY}). Each contender runs in JVMs of its own, forked with the same options
 * ({@link #CHILD_JVM_OPTIONS}), so no contender's garbage or threads count against another. In each,
 * after calls started and cancelled for {@link #WARMUP} (the JIT's warm-up), then
 * {@value #ROUNDS} times over:
 * <ol>
 * <li>{@code count} calls whose first attempt fails at once and whose retry waits one hour; timed from
 * the first call until every retry is pending (Failsafe makes its first attempts on the executor, so
 * this includes them);
 * <li>the heap after full GCs, minus the heap before, over {@code count}, with the returned futures held
 * (the caller needs them to cancel), and the live threads minus those before the contender started;
 * <li>every future cancelled, timed; then the futures dropped and the heap measured again: what the
 * library itself still holds for a cancelled retry.
 * </ol>
 * A JVM reports the times of every round and the heap figures of its last round; one wheel rotation
 * after it the heap is measured once more. The table shows, per contender, the median over every round
 * of all its JVMs, and the median of the JVMs' heap figures. Then, apart, {@value #SMALL_COUNT} calls
 * with a {@code 50 ms} retry delay, all cancelled once their first attempt ran, and up to
 * {@code 200 ms} of waiting (a latch that any retry starting after its call's {@code cancel} returned
 * {@code true} counts down): such a retry is reported, it should never run.
 * Heap is read from {@link java.lang.management.MemoryMXBean} after {@value #GC_ROUNDS} calls of
 * {@link System#gc()}, each a full, compacting collection under G1 (the default collector) as under
 * the parallel one; by default the contenders run under the JVM's default collector, as a user's
 * application does ({@link #GC}).
 */
public final class PendingRetriesScale {

	static final int DEFAULT_COUNT = 1_000_000;

	/**
	 * How long each contender is warmed up. With a warm-up of 50,000 calls (about 10 ms for retrykit), the
	 * JIT was still compiling retrykit's call path 70 ms into the million timed calls
	 * ({@code -XX:+PrintCompilation}), so the times measured partly interpreted and C1 code.
	 */
	static final Duration WARMUP = Duration.ofSeconds(2);

	static final int WARMUP_BATCH = 50_000;

	/** The million calls are timed this many times over in each JVM; the table shows the median of all the JVMs' rounds. */
	static final int ROUNDS = 3;

	static final int SMALL_COUNT = 10_000;

	static final Duration LONG_DELAY = Duration.ofHours(1);

	static final Duration SHORT_DELAY = Duration.ofMillis(50);

	static final Duration WAIT_AFTER_CANCEL = Duration.ofMillis(200);

	/**
	 * The pause before each round's first heap reading: ten ticks of the wheel's defaults, in which a
	 * timer releases what was cancelled before (the wheel unlinks cancelled nodes on its next pass).
	 */
	static final Duration SETTLE = Duration.ofMillis(100);

	/** Longer than one rotation of the wheel's defaults (10 ms × 512 = 5.12 s). */
	static final Duration ROTATION_WAIT = Duration.ofSeconds(6);

	static final int GC_ROUNDS = 4;

	/**
	 * The argument that sets how many JVMs each contender runs in, one after the other (default
	 * {@value #DEFAULT_FORKS}). On a small, shared machine the time per call differs more
	 * between JVMs than between rounds of one JVM (for retrykit, 77–123 ns across 24 JVMs), so the times
	 * reported are the median over every round of every JVM.
	 */
	static final String FORKS = "--forks";

	static final int DEFAULT_FORKS = 3;

	static final List<String> CHILD_JVM_OPTIONS = List.of("-Xms4g", "-Xmx4g");

	/**
	 * The argument that chooses the garbage collector of the contenders' JVMs: {@code default} (the
	 * default: no collector flag, the JVM's own choice, G1 on a server-class machine, as a user runs),
	 * {@code parallel} ({@code -XX:+UseParallelGC}, which the program forced before; cancelling is
	 * cheaper under it) or {@code both} (every contender under each, one table per collector).
	 */
	static final String GC = "--gc";

	/** The collectors the program can run the contenders under. */
	enum Collector {

		DEFAULT("default", List.of()),
		PARALLEL("parallel", List.of("-XX:+UseParallelGC"));

		final String argument;

		final List<String> jvmOptions;

		Collector(String argument, List<String> jvmOptions) {
			this.argument = argument;
			this.jvmOptions = jvmOptions;
		}

		/** @return the collectors an argument of {@value PendingRetriesScale#GC} names */
		static List<Collector> named(String value) {
			return switch (value) {
				case "default" -> List.of(DEFAULT);
				case "parallel" -> List.of(PARALLEL);
				case "both" -> List.of(DEFAULT, PARALLEL);
				default -> throw new IllegalArgumentException("Invalid " + GC + " value '" + value
						+ "': must be default, parallel or both");
			};
		}

	}

	/**
	 * The argument that adds {@code -XX:+AlwaysPreTouch} to every contender's JVM: the heap's pages are
	 * mapped before the run, as in a service that has been up for a while, so the times leave out the
	 * operating system's first touch of each page (which the default run includes, and which grows with
	 * the bytes a call allocates).
	 */
	static final String PRE_TOUCH = "--pre-touch";

	/**
	 * The argument that runs only the named contenders ({@link ScaleContender} constant names, such as
	 * {@code RETRYKIT,SCHEDULED_EXECUTOR}), in their usual order; by default every contender runs.
	 */
	static final String ONLY = "--only";

	private PendingRetriesScale() {
	}

	/**
	 * @param args optional: the number of pending retries (default 1,000,000), and {@value #PRE_TOUCH};
	 * {@code --child NAME COUNT} is how the parent starts a contender's JVM
	 * @throws Exception if a contender's JVM fails
	 */
	public static void main(String[] args) throws Exception {
		if (args.length == 3 && args[0].equals("--child")) {
			Map<String, String> result = measure(ScaleContender.valueOf(args[1]), Integer.parseInt(args[2]));
			StringBuilder line = new StringBuilder("RESULT");
			result.forEach((key, value) -> line.append(' ').append(key).append('=').append(value));
			System.out.println(line);
			return;
		}
		List<String> arguments = new ArrayList<>(List.of(args));
		List<String> baseOptions = new ArrayList<>(CHILD_JVM_OPTIONS);
		if (arguments.remove(PRE_TOUCH)) {
			baseOptions.add("-XX:+AlwaysPreTouch");
		}
		int forks = takeForks(arguments);
		List<Collector> collectors = Collector.named(takeValue(arguments, GC, Collector.DEFAULT.argument));
		List<ScaleContender> contenders = ScaleContender.named(takeValue(arguments, ONLY, ""));
		if (arguments.size() > 1) {
			throw new IllegalArgumentException("Unexpected arguments " + arguments + ": expected [count] ["
					+ FORKS + " N] [" + GC + " default|parallel|both] [" + PRE_TOUCH + "] [" + ONLY + " NAME,...]");
		}
		int count = arguments.isEmpty() ? DEFAULT_COUNT : Integer.parseInt(arguments.get(0));
		for (Collector collector : collectors) {
			List<String> jvmOptions = new ArrayList<>(baseOptions);
			jvmOptions.addAll(collector.jvmOptions);
			System.out.println("Pending async retries: " + count + " per contender, retry delay " + LONG_DELAY
					+ "; each contender in " + forks + " JVMs of its own, one after the other, with "
					+ String.join(" ", jvmOptions) + ", " + collector.argument + " collector (Java "
					+ System.getProperty("java.version") + ")");
			List<Map<String, String>> rows = new ArrayList<>();
			String collectorInUse = null;
			List<String> failures = new ArrayList<>();
			for (ScaleContender contender : contenders) {
				List<Map<String, String>> runs = new ArrayList<>();
				for (int run = 1; run <= forks; run++) {
					System.out.println("Running " + contender.label + ", JVM " + run + " of " + forks + " ...");
					try {
						Map<String, String> result = fork(contender, count, jvmOptions);
						collectorInUse = result.get("collector");
						runs.add(result);
					}
					catch (IllegalStateException ex) {
						// One contender's failed JVM must not cost the others' results: it is reported below.
						failures.add(contender.label + ", JVM " + run + " of " + forks + ": " + ex.getMessage());
					}
				}
				if (!runs.isEmpty()) {
					rows.add(ScaleTable.combine(contender.label, runs));
				}
			}
			System.out.println();
			System.out.println("Collector: " + collector.argument + " (the contenders' JVMs ran " + collectorInUse + ")");
			ScaleTable.print(rows, count, forks);
			for (String failure : failures) {
				System.out.println("FAILED (left out of the table): " + failure);
			}
		}
	}

	/** Removes {@code name} and its value from the arguments; returns the value, or {@code otherwise}. */
	private static String takeValue(List<String> arguments, String name, String otherwise) {
		int at = arguments.indexOf(name);
		if (at < 0) {
			return otherwise;
		}
		if (at + 1 >= arguments.size()) {
			throw new IllegalArgumentException(name + " needs a value");
		}
		String value = arguments.remove(at + 1);
		arguments.remove(at);
		return value;
	}

	/** @return the names of this JVM's collectors, joined without spaces (a result value has none) */
	private static String collectorInUse() {
		return ManagementFactory.getGarbageCollectorMXBeans().stream().map(bean -> bean.getName().replace(' ', '_'))
			.collect(java.util.stream.Collectors.joining(","));
	}

	/** Removes {@value #FORKS} and its value from the arguments; returns the value, or the default. */
	private static int takeForks(List<String> arguments) {
		int at = arguments.indexOf(FORKS);
		if (at < 0) {
			return DEFAULT_FORKS;
		}
		String value = (at + 1 < arguments.size()) ? arguments.remove(at + 1) : "";
		arguments.remove(at);
		int forks;
		try {
			forks = Integer.parseInt(value);
		}
		catch (NumberFormatException ex) {
			forks = 0;
		}
		if (forks < 1 || forks > 20) {
			throw new IllegalArgumentException("Invalid " + FORKS + " value '" + value
					+ "': must be a number of JVMs per contender, from 1 to 20");
		}
		return forks;
	}

	private static Map<String, String> fork(ScaleContender contender, int count, List<String> jvmOptions)
			throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmOptions);
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), PendingRetriesScale.class.getName(),
				"--child", contender.name(), Integer.toString(count)));
		Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
		Map<String, String> result = null;
		try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = out.readLine(); line != null; line = out.readLine()) {
				if (line.startsWith("RESULT ")) {
					result = new LinkedHashMap<>();
					for (String pair : line.substring(7).split(" ")) {
						int eq = pair.indexOf('=');
						result.put(pair.substring(0, eq), pair.substring(eq + 1));
					}
				}
				else {
					System.out.println("  " + line);
				}
			}
		}
		int exit = process.waitFor();
		if (exit != 0 || result == null) {
			throw new IllegalStateException(contender.label + ": its JVM exited with " + exit + " without a result");
		}
		result.put("contender", contender.label);
		return result;
	}

	/** Runs one contender in this JVM. */
	static Map<String, String> measure(ScaleContender contender, int count) throws InterruptedException {
		Map<String, String> result = new LinkedHashMap<>();
		int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
		try (ScaleContender.Harness harness = contender.start(LONG_DELAY)) {
			CountingProbe probe = new CountingProbe();
			long warmUpCalls = warmUp(harness, probe);
			Future<?>[] futures = new Future<?>[count];
			double[] callNanos = new double[ROUNDS];
			double[] scheduleNanos = new double[ROUNDS];
			double[] cancelNanos = new double[ROUNDS];
			long heapBefore = 0;
			long heapPending = 0;
			long heapCancelled = 0;
			int threadsPending = 0;
			int cancelled = 0;
			for (int round = 0; round < ROUNDS; round++) {
				// A pause first, so that what the last round (or the warm-up) cancelled has been released
				// by the contender's timer and does not count against this round's heap.
				LockSupport.parkNanos(SETTLE.toNanos());
				long pendingBefore = harness.pending();
				long attemptsBefore = probe.attempts.sum();
				heapBefore = usedHeapAfterGc();

				long start = System.nanoTime();
				for (int i = 0; i < count; i++) {
					futures[i] = harness.call(probe);
				}
				long returned = System.nanoTime();
				awaitPending(harness, probe, pendingBefore + count, harness.makesFirstAttempt ? attemptsBefore + count : 0);
				long allPending = System.nanoTime();
				heapPending = usedHeapAfterGc();
				threadsPending = ManagementFactory.getThreadMXBean().getThreadCount();

				long cancelStart = System.nanoTime();
				cancelled = 0;
				for (Future<?> future : futures) {
					if (future.cancel(false)) {
						cancelled++;
					}
				}
				long cancelEnd = System.nanoTime();
				Arrays.fill(futures, null);
				heapCancelled = usedHeapAfterGc();
				callNanos[round] = (returned - start) / (double) count;
				scheduleNanos[round] = (allPending - start) / (double) count;
				cancelNanos[round] = (cancelEnd - cancelStart) / (double) count;
			}
			LockSupport.parkNanos(ROTATION_WAIT.toNanos());
			long heapCancelledLater = usedHeapAfterGc();

			result.put("collector", collectorInUse());
			result.put("warmUpCalls", Long.toString(warmUpCalls));
			result.put("callRounds", ScaleTable.formatAll(callNanos));
			result.put("scheduleRounds", ScaleTable.formatAll(scheduleNanos));
			result.put("cancelRounds", ScaleTable.formatAll(cancelNanos));
			result.put("cancelledTrue", Integer.toString(cancelled));
			result.put("bytesPending", ScaleTable.format((heapPending - heapBefore) / (double) count));
			result.put("bytesAfterCancel", ScaleTable.format((heapCancelled - heapBefore) / (double) count));
			result.put("bytesAfterCancelLater", ScaleTable.format((heapCancelledLater - heapBefore) / (double) count));
			result.put("threads", Integer.toString(threadsPending - threadsBefore));
		}
		shortDelayCancellation(contender, result);
		return result;
	}

	/**
	 * Starts and cancels calls for {@link #WARMUP}, in batches of {@value #WARMUP_BATCH}, so that the JIT
	 * has compiled each contender's whole call path before the timed rounds.
	 * @return the calls made
	 */
	private static long warmUp(ScaleContender.Harness harness, CountingProbe probe) {
		long end = System.nanoTime() + WARMUP.toNanos();
		long calls = 0;
		do {
			for (int i = 0; i < WARMUP_BATCH; i++) {
				harness.call(probe).cancel(false);
			}
			calls += WARMUP_BATCH;
		}
		while (System.nanoTime() - end < 0);
		return calls;
	}

	/** Waits (a benchmark may) until the timer holds {@code pending} tasks and the first attempts ran. */
	private static void awaitPending(ScaleContender.Harness harness, CountingProbe probe, long pending, long attempts) {
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
		while (harness.pending() < pending || probe.attempts.sum() < attempts) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out with " + harness.pending() + " of " + pending
						+ " tasks pending and " + probe.attempts.sum() + " of " + attempts + " attempts made");
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
	}

	/** The 50 ms variant: does a cancelled retry still run? */
	private static void shortDelayCancellation(ScaleContender contender, Map<String, String> result) throws InterruptedException {
		CountDownLatch retriedAfterCancel = new CountDownLatch(SMALL_COUNT);
		TrackingProbe.Totals totals = new TrackingProbe.Totals(retriedAfterCancel);
		try (ScaleContender.Harness harness = contender.start(SHORT_DELAY)) {
			TrackingProbe[] probes = new TrackingProbe[SMALL_COUNT];
			Future<?>[] futures = new Future<?>[SMALL_COUNT];
			for (int i = 0; i < SMALL_COUNT; i++) {
				probes[i] = new TrackingProbe(totals);
				futures[i] = harness.call(probes[i]);
			}
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (harness.makesFirstAttempt && totals.firstAttempts.sum() < SMALL_COUNT && System.nanoTime() < deadline) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
			}
			int cancelled = 0;
			for (int i = 0; i < SMALL_COUNT; i++) {
				if (futures[i].cancel(false)) {
					probes[i].cancelled = true;
					cancelled++;
				}
			}
			retriedAfterCancel.await(WAIT_AFTER_CANCEL.toMillis(), TimeUnit.MILLISECONDS);
			result.put("smallCancelled", Integer.toString(cancelled));
			result.put("smallRetries", Long.toString(totals.retries.sum()));
			result.put("smallRetriesAfterCancel", Long.toString(totals.retriesAfterCancel.sum()));
		}
	}

	/** Full collections until the used heap stops shrinking, at most {@link #GC_ROUNDS} of them. */
	static long usedHeapAfterGc() {
		long used = Long.MAX_VALUE;
		for (int round = 0; round < GC_ROUNDS; round++) {
			System.gc();
			long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
			if (now >= used) {
				return Math.min(now, used);
			}
			used = now;
		}
		return used;
	}

	/** The probe of the million calls: counts attempts, shared by every call so it adds no bytes per call. */
	static final class CountingProbe extends ScaleContender.Probe {

		final LongAdder attempts = new LongAdder();

		@Override
		void onAttempt() {
			this.attempts.increment();
		}

		@Override
		void onRetry() {
			this.attempts.increment();
		}

	}

	/** One probe per call of the 50 ms variant: knows whether its call's cancel returned {@code true}. */
	static final class TrackingProbe extends ScaleContender.Probe {

		private final Totals totals;

		private final AtomicInteger attempts = new AtomicInteger();

		/** Set once {@code cancel} has returned {@code true} for this probe's call. */
		volatile boolean cancelled;

		TrackingProbe(Totals totals) {
			this.totals = totals;
		}

		@Override
		void onAttempt() {
			if (this.attempts.getAndIncrement() == 0) {
				this.totals.firstAttempts.increment();
			}
			else {
				onRetry();
			}
		}

		@Override
		void onRetry() {
			this.totals.retries.increment();
			if (this.cancelled) {
				this.totals.retriesAfterCancel.increment();
				this.totals.retriedAfterCancel.countDown();
			}
		}

		/** The counts shared by the probes of one run. */
		static final class Totals {

			final LongAdder firstAttempts = new LongAdder();

			final LongAdder retries = new LongAdder();

			final LongAdder retriesAfterCancel = new LongAdder();

			final CountDownLatch retriedAfterCancel;

			Totals(CountDownLatch retriedAfterCancel) {
				this.retriedAfterCancel = retriedAfterCancel;
			}

		}

	}

}
