import * as stack from "../stacks/sdk1.mjs";
import { installHarness } from "./harness.mjs";
installHarness(stack);
