/**
 * The server-side stand-ins of the islands: pages and layouts render these, and each one records
 * itself so that the page ships its chunk and props. The name is the file name in islands/.
 */
import AvatarComponent from "../islands/Avatar.tsx";
import ColorModeToggleComponent from "../islands/ColorModeToggle.tsx";
import ConsoleUsersComponent from "../islands/ConsoleUsers.tsx";
import ForgotFormComponent from "../islands/ForgotForm.tsx";
import IdentityCheckComponent from "../islands/IdentityCheck.tsx";
import LoginFormComponent from "../islands/LoginForm.tsx";
import NotificationQueueComponent from "../islands/NotificationQueue.tsx";
import OnBehalfBannerComponent from "../islands/OnBehalfBanner.tsx";
import PersonalProfileFormComponent from "../islands/PersonalProfileForm.tsx";
import BusinessProfileFormComponent from "../islands/BusinessProfileForm.tsx";
import RegisterFormComponent from "../islands/RegisterForm.tsx";
import SecondFactorFormComponent from "../islands/SecondFactorForm.tsx";
import SetupFormComponent from "../islands/SetupForm.tsx";
import TotpSettingsComponent from "../islands/TotpSettings.tsx";
import VerifyFormComponent from "../islands/VerifyForm.tsx";
import CalculatorComponent from "../islands/Calculator.tsx";
import ConvertFormComponent from "../islands/ConvertForm.tsx";
import BalancesComponent from "../islands/Balances.tsx";
import ConsoleRatesComponent from "../islands/ConsoleRates.tsx";
import ConsolePricingPlansComponent from "../islands/ConsolePricingPlans.tsx";
import ConsoleReceiptsComponent from "../islands/ConsoleReceipts.tsx";
import ConsoleUserFeesComponent from "../islands/ConsoleUserFees.tsx";
import PaymentFormComponent from "../islands/PaymentForm.tsx";
import PendingPaymentComponent from "../islands/PendingPayment.tsx";
import PendingPaymentsComponent from "../islands/PendingPayments.tsx";
import { island } from "../server/render/islands.tsx";

export const Avatar = island("Avatar", AvatarComponent);
export const ColorModeToggle = island("ColorModeToggle", ColorModeToggleComponent);
export const ConsoleUsers = island("ConsoleUsers", ConsoleUsersComponent);
export const ForgotForm = island("ForgotForm", ForgotFormComponent);
export const IdentityCheck = island("IdentityCheck", IdentityCheckComponent);
export const LoginForm = island("LoginForm", LoginFormComponent);
export const NotificationQueue = island("NotificationQueue", NotificationQueueComponent);
export const OnBehalfBanner = island("OnBehalfBanner", OnBehalfBannerComponent);
export const PersonalProfileForm = island("PersonalProfileForm", PersonalProfileFormComponent);
export const BusinessProfileForm = island("BusinessProfileForm", BusinessProfileFormComponent);
export const RegisterForm = island("RegisterForm", RegisterFormComponent);
export const SecondFactorForm = island("SecondFactorForm", SecondFactorFormComponent);
export const SetupForm = island("SetupForm", SetupFormComponent);
export const TotpSettings = island("TotpSettings", TotpSettingsComponent);
export const VerifyForm = island("VerifyForm", VerifyFormComponent);
export const Calculator = island("Calculator", CalculatorComponent);
export const ConvertForm = island("ConvertForm", ConvertFormComponent);
export const Balances = island("Balances", BalancesComponent);
export const ConsoleRates = island("ConsoleRates", ConsoleRatesComponent);
export const ConsolePricingPlans = island("ConsolePricingPlans", ConsolePricingPlansComponent);
export const ConsoleReceipts = island("ConsoleReceipts", ConsoleReceiptsComponent);
export const ConsoleUserFees = island("ConsoleUserFees", ConsoleUserFeesComponent);
export const PaymentForm = island("PaymentForm", PaymentFormComponent);
export const PendingPayments = island("PendingPayments", PendingPaymentsComponent);
export const PendingPayment = island("PendingPayment", PendingPaymentComponent);
