// Command terraform-provider-null is a minimal, offline stand-in for the
// hashicorp/null provider (version 3.2.4). It implements only the
// null_resource resource, with the same schema as the real provider, so that
// configurations synthesized by @cdktf/provider-null can be planned, applied
// and destroyed without downloading the real provider. See README.md.
//
// Provisioners (local-exec, remote-exec, ...) are executed by Terraform core,
// not by the provider, so they behave exactly as with the real provider.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	providerschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// providerAddress must match the source address Terraform resolves "null" to.
const providerAddress = "registry.terraform.io/hashicorp/null"

// version is reported to Terraform; it should match the mirror directory name.
var version = "3.2.4"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers")
	flag.Parse()

	err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{
		Address: providerAddress,
		Debug:   debug,
		// The real hashicorp/null 3.2.x speaks plugin protocol 5.
		ProtocolVersion: 5,
	})
	if err != nil {
		log.Fatal(err)
	}
}

// nullProvider has no configuration and exposes a single resource.
type nullProvider struct{}

var _ provider.Provider = (*nullProvider)(nil)

func newProvider() provider.Provider { return &nullProvider{} }

func (p *nullProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "null"
	resp.Version = version
}

func (p *nullProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = providerschema.Schema{
		Description: "Offline stand-in for hashicorp/null: only null_resource is implemented.",
	}
}

func (p *nullProvider) Configure(_ context.Context, _ provider.ConfigureRequest, _ *provider.ConfigureResponse) {
}

func (p *nullProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{newNullResource}
}

// DataSources is empty: null_data_source is deliberately not implemented.
func (p *nullProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return nil
}

// nullResource is null_resource: it does nothing except hold an id and a map
// of triggers whose change forces replacement (and so re-runs provisioners).
type nullResource struct{}

var _ resource.Resource = (*nullResource)(nil)

func newNullResource() resource.Resource { return &nullResource{} }

type nullResourceModel struct {
	ID       types.String `tfsdk:"id"`
	Triggers types.Map    `tfsdk:"triggers"`
}

func (r *nullResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_resource"
}

func (r *nullResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A resource that does nothing; use it with provisioners and triggers.",
		Attributes: map[string]schema.Attribute{
			"triggers": schema.MapAttribute{
				Description: "A map of arbitrary strings that, when changed, will force the null resource " +
					"to be replaced, re-running any associated provisioners.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"id": schema.StringAttribute{
				Description:   "This is set to a random value at create time.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

func (r *nullResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var model nullResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Like the real provider: a random non-negative decimal integer.
	model.ID = types.StringValue(fmt.Sprintf("%d", rand.Int()))
	resp.Diagnostics.Append(resp.State.Set(ctx, model)...)
}

// Read keeps the prior state unchanged (the framework pre-populates it).
func (r *nullResource) Read(_ context.Context, _ resource.ReadRequest, _ *resource.ReadResponse) {
}

// Update only runs if nothing but non-replacing attributes changed, which
// cannot happen with this schema; copy the plan into state for completeness.
func (r *nullResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var model nullResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, model)...)
}

// Delete has nothing to clean up; the framework removes the state.
func (r *nullResource) Delete(_ context.Context, _ resource.DeleteRequest, _ *resource.DeleteResponse) {
}
