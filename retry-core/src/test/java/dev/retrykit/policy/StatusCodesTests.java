package dev.retrykit.policy;

import java.util.stream.Stream;

import dev.retrykit.spi.StatusExtractor.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class StatusCodesTests {

	private static final String HTTP_RULE = "; use codes 100-599 and ranges like 500-599, separated by commas";

	private static final String GRPC_RULE = "; use codes 0-16 and ranges like 1-4, separated by commas";

	@Test
	void parsesCodesAndRanges() {
		StatusCodes codes = StatusCodes.parse("429,500-599", Kind.HTTP);
		assertThat(codes.contains(429)).isTrue();
		assertThat(codes.contains(500)).isTrue();
		assertThat(codes.contains(550)).isTrue();
		assertThat(codes.contains(599)).isTrue();
		assertThat(codes.contains(428)).isFalse();
		assertThat(codes.contains(499)).isFalse();
		assertThat(codes.kind()).isEqualTo(Kind.HTTP);
	}

	@Test
	void toleratesSpacesAroundEntriesAndDashes() {
		StatusCodes codes = StatusCodes.parse(" 1-4, 8-11 ,13,14", Kind.GRPC);
		assertThat(codes).hasToString("1-4,8-11,13,14");
		assertThat(StatusCodes.parse("500 - 503", Kind.HTTP)).hasToString("500-503");
	}

	@Test
	void normalizesOrderOverlapsAndShortRuns() {
		assertThat(StatusCodes.parse("599,500-598,429,100", Kind.HTTP)).hasToString("100,429,500-599");
		assertThat(StatusCodes.parse("502,503,501,504-510,505", Kind.HTTP)).hasToString("501-510");
		assertThat(StatusCodes.parse("13,14", Kind.GRPC)).hasToString("13,14");
		assertThat(StatusCodes.parse("0-16", Kind.GRPC)).hasToString("0-16");
		assertThat(StatusCodes.parse("0429", Kind.HTTP)).hasToString("429");
	}

	@Test
	void codesOutsideTheKindAreNeverContained() {
		StatusCodes all = StatusCodes.parse("100-599", Kind.HTTP);
		assertThat(all.contains(99)).isFalse();
		assertThat(all.contains(600)).isFalse();
		assertThat(all.contains(-1)).isFalse();
		assertThat(all.contains(Integer.MAX_VALUE)).isFalse();
		assertThat(all.contains(Integer.MIN_VALUE)).isFalse();
		StatusCodes grpc = StatusCodes.parse("0-16", Kind.GRPC);
		assertThat(grpc.contains(0)).isTrue();
		assertThat(grpc.contains(16)).isTrue();
		assertThat(grpc.contains(17)).isFalse();
		assertThat(grpc.contains(64)).isFalse();
	}

	@Test
	void equalityIgnoresSpelling() {
		StatusCodes codes = StatusCodes.parse("429,500-599", Kind.HTTP);
		assertThat(codes).isEqualTo(StatusCodes.parse(" 500-599 , 429, 550 ", Kind.HTTP))
				.hasSameHashCodeAs(StatusCodes.parse("500-599,429", Kind.HTTP))
				.isNotEqualTo(StatusCodes.parse("429,500-598", Kind.HTTP));
	}

	@Test
	void sameCodesOfDifferentKindsDiffer() {
		assertThat(StatusCodes.parse("100-116", Kind.HTTP)).isNotEqualTo(StatusCodes.parse("0-16", Kind.GRPC));
	}

	static Stream<Arguments> invalidHttpLists() {
		return Stream.of(
				Arguments.of("429,50x", "'50x' is not a status code or a range"),
				Arguments.of("", "the list is empty"),
				Arguments.of("  ", "the list is empty"),
				Arguments.of("429,,500", "entry 2 is empty"),
				Arguments.of("429,", "entry 2 is empty"),
				Arguments.of(",429", "entry 1 is empty"),
				Arguments.of("429, ,500", "entry 2 is empty"),
				Arguments.of("600", "'600' is outside 100-599"),
				Arguments.of("99", "'99' is outside 100-599"),
				Arguments.of("500-600", "'500-600' is outside 100-599"),
				Arguments.of("99999999999", "'99999999999' is outside 100-599"),
				Arguments.of("599-500", "'599-500' is a reversed range (write the lower code first: 500-599)"),
				Arguments.of("500-", "'500-' is not a status code or a range"),
				Arguments.of("-500", "'-500' is not a status code or a range"),
				Arguments.of("500--599", "'500--599' is not a status code or a range"),
				Arguments.of("500-550-599", "'500-550-599' is not a status code or a range"),
				Arguments.of("+429", "'+429' is not a status code or a range"),
				Arguments.of("429;500", "'429;500' is not a status code or a range"),
				Arguments.of("4 29", "'4 29' is not a status code or a range"));
	}

	@ParameterizedTest
	@MethodSource("invalidHttpLists")
	void invalidHttpListsNameTheEntryAndTheRule(String spec, String reason) {
		assertThatIllegalArgumentException().isThrownBy(() -> StatusCodes.parse(spec, Kind.HTTP))
				.withMessage("Invalid HTTP status list '" + spec + "': " + reason + HTTP_RULE);
	}

	@Test
	void theDocumentedExampleMessage() {
		assertThatIllegalArgumentException().isThrownBy(() -> StatusCodes.parse("429,50x", Kind.HTTP))
				.withMessage("Invalid HTTP status list '429,50x': '50x' is not a status code or a range; "
						+ "use codes 100-599 and ranges like 500-599, separated by commas");
	}

	@Test
	void invalidGrpcListsStateTheGrpcRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> StatusCodes.parse("1-4,17", Kind.GRPC))
				.withMessage("Invalid gRPC status list '1-4,17': '17' is outside 0-16" + GRPC_RULE);
		assertThatIllegalArgumentException().isThrownBy(() -> StatusCodes.parse("UNAVAILABLE", Kind.GRPC))
				.withMessage("Invalid gRPC status list 'UNAVAILABLE': 'UNAVAILABLE' is not a status code or a range" + GRPC_RULE);
		assertThatIllegalArgumentException().isThrownBy(() -> StatusCodes.parse("4-1", Kind.GRPC))
				.withMessage("Invalid gRPC status list '4-1': '4-1' is a reversed range (write the lower code first: 1-4)" + GRPC_RULE);
	}

	@Test
	void rejectsNulls() {
		assertThatNullPointerException().isThrownBy(() -> StatusCodes.parse(null, Kind.HTTP)).withMessage("spec must not be null");
		assertThatNullPointerException().isThrownBy(() -> StatusCodes.parse("429", null)).withMessage("kind must not be null");
	}

}
