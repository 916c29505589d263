package dev.retrykit.benchmarks;

import java.util.List;
import java.util.Map;

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

	static void print(List<Map<String, String>> rows, int count) {
		int nameWidth = "contender".length();
		for (Map<String, String> row : rows) {
			nameWidth = Math.max(nameWidth, row.get("contender").length());
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
		System.out.println("Per contender: " + count + " calls, each cancelled once, in each of " + PendingRetriesScale.ROUNDS
				+ " rounds after a warm-up of " + PendingRetriesScale.WARMUP.toSeconds() + " s; times are the median round,"
				+ " bytes those of the last round; 'ran after cancel' counts, of "
				+ PendingRetriesScale.SMALL_COUNT + " calls with a " + PendingRetriesScale.SHORT_DELAY.toMillis()
				+ " ms retry delay, the retries that started after their call's cancel returned true.");
		for (Map<String, String> row : rows) {
			System.out.println("  " + row.get("contender") + ": " + row.get("warmUpCalls") + " warm-up calls; rounds: ns/schedule "
					+ row.get("scheduleRounds") + ", ns/cancel " + row.get("cancelRounds") + "; cancel returned true for "
					+ row.get("cancelledTrue")
					+ " of " + count + "; 50 ms variant: " + row.get("smallCancelled") + " of "
					+ PendingRetriesScale.SMALL_COUNT + " cancelled, " + row.get("smallRetries") + " retries ran, "
					+ row.get("smallRetriesAfterCancel") + " of them after cancel");
		}
	}

}
