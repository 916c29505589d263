package shop;

import dev.retrykit.CallOutcome;

class Outcomes {

	boolean retried(CallOutcome outcome) {
		return outcome == CallOutcome.SUCCESSFUL_WITH_RETRY || outcome == CallOutcome.failed(true);
	}

}
