package dev.retrykit.benchmarks;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Prints the results of {@link PendingRetriesScale}, one row per contender. */
final class ScaleTable {

	private static final String[][] COLUMNS = {
		{ "bytesPending", "B/retry pending" },
		{ "threads", "threads +" },
		{ "scheduleNanos", "ns/schedule" },
		{ "callNanos", "(call returns)" },
		{ "cancelNanos", "ns/cancel" },
		{ "bytesAfterCancel", "B/retry after cancel" },
		{ "bytesAfterCancelLater", "same, 6 s later" },
		{ "smallRetriesAfterCancel", "ran after cancel" },
	};

	private ScaleTable() {
	}

	/**
	 * One row from a contender's JVMs: each time is the median over every round of every JVM; each heap
	 * figure the median over the JVMs; threads the most any JVM added; the counts of the 50 ms variant
	 * the sums over the JVMs (a retry that ran after its cancel in any JVM shows).
	 * @param label the contender's label
	 * @param runs the results of its JVMs, at least one
	 * @return the row
	 */
	static Map<String, String> combine(String label, List<Map<String, String>> runs) {
		Map<String, String> row = new LinkedHashMap<>();
		row.put("contender", label);
		row.put("callNanos", medianOfRounds(runs, "callRounds"));
		row.put("scheduleNanos", medianOfRounds(runs, "scheduleRounds"));
		row.put("cancelNanos", medianOfRounds(runs, "cancelRounds"));
		for (String key : List.of("bytesPending", "bytesAfterCancel", "bytesAfterCancelLater")) {
			row.put(key, format(median(values(runs, key))));
		}
		row.put("threads", Long.toString((long) Arrays.stream(values(runs, "threads")).max().orElseThrow()));
		for (String key : List.of("cancelledTrue", "smallCancelled", "smallRetries", "smallRetriesAfterCancel")) {
			row.put(key, Long.toString((long) Arrays.stream(values(runs, key)).sum()));
		}
		for (String key : List.of("warmUpCalls", "scheduleRounds", "cancelRounds")) {
			row.put(key, runs.stream().map(run -> run.get(key)).collect(Collectors.joining(" | ")));
		}
		return row;
	}

	private static String medianOfRounds(List<Map<String, String>> runs, String key) {
		double[] rounds = runs.stream()
			.flatMap(run -> Arrays.stream(column(run, key).split("/")))
			.mapToDouble(Double::parseDouble)
			.toArray();
		return format(median(rounds));
	}

	private static String column(Map<String, String> run, String key) {
		String value = run.get(key);
		if (value == null) {
			throw new IllegalArgumentException("A result has no '" + key + "' column: " + run);
		}
		return value;
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	private static double[] values(List<Map<String, String>> runs, String key) {
		return runs.stream().mapToDouble(run -> Double.parseDouble(column(run, key))).toArray();
	}

	static void print(List<Map<String, String>> rows, int count, int forks) {
		int nameWidth = "contender".length();
		for (Map<String, String> row : rows) {
			nameWidth = Math.max(nameWidth, column(row, "contender").length());
		}
		StringBuilder header = new StringBuilder(String.format("%-" + nameWidth + "s", "contender"));
		for (String[] column : COLUMNS) {
			header.append(" | ").append(column[1]);
		}
		System.out.println();
		System.out.println(header);
		for (Map<String, String> row : rows) {
			StringBuilder line = new StringBuilder(String.format("%-" + nameWidth + "s", row.get("contender")));
			for (String[] column : COLUMNS) {
				line.append(" | ").append(String.format("%" + column[1].length() + "s", row.get(column[0])));
			}
			System.out.println(line);
		}
		System.out.println();
		System.out.println("Per contender, in each of " + forks + " JVMs: " + count + " calls, each cancelled once, in each of "
				+ PendingRetriesScale.ROUNDS + " rounds after a warm-up of " + PendingRetriesScale.WARMUP.toSeconds()
				+ " s. Times are the median of all " + forks * PendingRetriesScale.ROUNDS + " rounds, bytes the median"
				+ " of the JVMs' last rounds; 'ran after cancel' counts, of " + forks + " × " + PendingRetriesScale.SMALL_COUNT
				+ " calls with a " + PendingRetriesScale.SHORT_DELAY.toMillis()
				+ " ms retry delay, the retries that started after their call's cancel returned true.");
		for (Map<String, String> row : rows) {
			System.out.println("  " + row.get("contender") + ": warm-up calls " + row.get("warmUpCalls")
					+ "; rounds by JVM: ns/schedule " + row.get("scheduleRounds") + "; ns/cancel " + row.get("cancelRounds")
					+ "; in the JVMs' last rounds, cancel returned true for " + row.get("cancelledTrue") + " of " + (long) forks * count
					+ "; 50 ms variant: " + row.get("smallCancelled") + " of " + forks * PendingRetriesScale.SMALL_COUNT
					+ " cancelled, " + row.get("smallRetries") + " retries ran, " + row.get("smallRetriesAfterCancel")
					+ " of them after cancel");
		}
	}

	/** @return one number to a tenth, as every table cell */
	static String format(double value) {
		return String.format(Locale.ROOT, "%.1f", value);
	}

	/** @return the rounds of one JVM, to a tenth, separated by slashes */
	static String formatAll(double[] values) {
		StringBuilder all = new StringBuilder();
		for (double value : values) {
			all.append((all.length() == 0) ? "" : "/").append(format(value));
		}
		return all.toString();
	}

}
