import * as stack from "../stacks/ext.mjs";
import { installHarness } from "./harness.mjs";
installHarness(stack);
